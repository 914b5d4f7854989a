import { createReadStream, existsSync, statSync } from "node:fs"
import type * as http from "node:http"
import { extname, join, normalize, sep } from "node:path"
import { packageRoot } from "../../services/PackageInfo.ts"

/** Where `vite build` writes the UI (vite.config.ts), in the checkout and in the installed package alike. */
export const defaultUiDirectory = (): string => join(packageRoot(), "dist", "ui")

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".map": "application/json"
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>dbdesk</title></head>
<body style="font-family:system-ui,sans-serif;margin:3rem"><h1>The UI is not built</h1>
<p>Run <code>npm run build</code> (or <code>npm start</code>, which builds it first) and reload.</p></body></html>`

/** Serves the built single-page app: a file under the directory, or index.html for any other path. */
export const serveStatic = (directory: string, pathname: string, res: http.ServerResponse) => {
  const root = normalize(directory)
  const wanted = normalize(join(root, decodeURIComponent(pathname)))
  const inside = wanted.startsWith(root + sep)
  const file = inside && existsSync(wanted) && statSync(wanted).isFile() ? wanted : join(root, "index.html")
  if (!existsSync(file)) {
    res.writeHead(503, { "content-type": "text/html; charset=utf-8" })
    res.end(NOT_BUILT)
    return
  }
  const hashed = file.includes(`${sep}assets${sep}`)
  res.writeHead(200, {
    "content-type": TYPES[extname(file)] ?? "application/octet-stream",
    "cache-control": hashed ? "public, max-age=31536000, immutable" : "no-cache",
    "x-content-type-options": "nosniff"
  })
  createReadStream(file).pipe(res)
}
