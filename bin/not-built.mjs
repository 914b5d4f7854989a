// A checkout that was never built has no dist/: say how to build instead of printing a module-resolution stack.
import { fileURLToPath } from "node:url"

export const notBuilt = (file) => (error) => {
  if (error?.code !== "ERR_MODULE_NOT_FOUND" || !String(error.message).includes(file)) throw error
  const root = fileURLToPath(new URL("../", import.meta.url))
  process.stderr.write(`dbdesk is not built: ${file} is missing. Run \`npm run build\` in ${root}\n`)
  process.exit(1)
}
