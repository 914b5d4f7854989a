import { Effect } from "effect"

/**
 * A command handler whose module is imported only when that command runs (D-76: a command loads only what it
 * needs). Command files hold options and descriptions and import nothing heavier than `@effect/cli`; the work lives in
 * `handlers/*`, so `dbdesk token list` never loads the server and `dbdesk serve` never loads the token commands.
 */
export const lazyHandler = <M, I, A, E, R>(
  load: () => Promise<M>,
  pick: (module: M) => (input: I) => Effect.Effect<A, E, R>
) =>
(input: I): Effect.Effect<A, E, R> => Effect.flatMap(Effect.promise(load), (module) => pick(module)(input))
