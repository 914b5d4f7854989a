import { runMain } from "@effect/platform-node/NodeRuntime"
import { bridgeMain } from "./BridgeProcess.ts"

// Imports only the bridge (not the server or the CLI) so a stdio host gets its first answer quickly.
const home = process.argv.indexOf("--home")
bridgeMain(home === -1 ? undefined : process.argv[home + 1]).pipe(runMain({ disableErrorReporting: false }))
