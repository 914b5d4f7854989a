#!/usr/bin/env node
// `npm run bench` (D-63): runs the TypeScript orchestrator through tsx, like bin/dbdesk.mjs.
// Flags are passed on: `npm run bench -- --quick`, `-- --profile`; see bench/README.md.
import { register } from "tsx/esm/api"

register()
await import("../bench/run.ts")
