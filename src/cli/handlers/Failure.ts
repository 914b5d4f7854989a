import { Console, Effect } from "effect"

/** A command that cannot do what was asked prints why on stderr and exits 1. */
export const failCommand = (message: string) =>
  Console.error(message).pipe(Effect.zipRight(Effect.sync(() => {
    process.exitCode = 1
  })))
