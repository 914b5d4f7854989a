#!/usr/bin/env node
// The stdio bridge as its own binary (D-53): the built bridge alone, not the server or the CLI.
import { notBuilt } from "./not-built.mjs"

await import("../dist/app/bridge.js").catch(notBuilt("dist/app/bridge.js"))
