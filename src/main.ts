import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { runCli } from "./cli/Cli.ts"

runCli(process.argv).pipe(Effect.provide(NodeContext.layer), NodeRuntime.runMain({ disableErrorReporting: false }))
