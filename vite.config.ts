import react from "@vitejs/plugin-react"
import { defineConfig } from "vite"

/** The UI is served by dbdesk's UI server on its own loopback port (D-3, D-60). */
export default defineConfig({
  root: "src/ui",
  plugins: [react()],
  build: { outDir: "../../dist/ui", emptyOutDir: true }
})
