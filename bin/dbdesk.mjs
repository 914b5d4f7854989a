#!/usr/bin/env node
// dbdesk's command line: the built JavaScript in dist/app (`npm run build`; `npm start` builds first).
import { notBuilt } from "./not-built.mjs"

await import("../dist/app/cli.js").catch(notBuilt("dist/app/cli.js"))
