#!/usr/bin/env node
// The stdio bridge as its own binary (product-decisions §7); runs the TypeScript sources through tsx like bin/dbdesk.mjs.
import { register } from "tsx/esm/api"

register()
await import("../src/bridge/BridgeMain.ts")
