import { Clock, Duration, Effect, Fiber, Schedule } from "effect"

/** How often a running read tells its rows, at most. */
const EVERY = Duration.millis(250)

/**
 * D-94: a read's progress as its rows arrive, between "Executing" (0.3) and "Done" (1.0): `progress` grows with the
 * rows read towards the answer's `maxRows`, and the message says the rows read and the seconds since the read began.
 * A tick with no new row tells nothing (progress must increase).
 */
export const withRowProgress = <A, E, R>(
  progress: (value: number, message: string) => Effect.Effect<void>,
  maxRows: number,
  body: (onRows: (rows: number) => void) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.gen(function*() {
    let rows = 0
    let told = 0
    const started = yield* Clock.currentTimeMillis
    const tick = Effect.flatMap(Clock.currentTimeMillis, (now) => {
      if (rows === told) return Effect.void
      told = rows
      const seconds = ((now - started) / 1000).toFixed(1)
      return progress(
        0.3 + 0.7 * Math.min(rows, maxRows) / (maxRows + 1),
        `${rows} row${rows === 1 ? "" : "s"} read, ${seconds} s`
      )
    })
    const ticker = yield* Effect.fork(Effect.repeat(Effect.delay(tick, EVERY), Schedule.forever))
    return yield* body((count) => {
      rows = count
    }).pipe(Effect.ensuring(Fiber.interrupt(ticker)))
  })

/** Seconds at which a count's bar stands halfway between "Counting" (0.3) and "Done" (1.0). */
const HALFWAY_SECONDS = 30

/**
 * D-94: progress of work that has no rows so far to tell (a COUNT): every 250 ms the seconds since it began
 * ("counting, 2.5 s"), `progress` growing with them from 0.3 towards 1 without reaching it.
 */
export const withElapsedProgress = <A, E, R>(
  progress: (value: number, message: string) => Effect.Effect<void>,
  doing: string,
  body: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    const tick = Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const seconds = (now - started) / 1000
      return progress(0.3 + 0.7 * seconds / (seconds + HALFWAY_SECONDS), `${doing}, ${seconds.toFixed(1)} s`)
    })
    const ticker = yield* Effect.fork(Effect.repeat(Effect.delay(tick, EVERY), Schedule.forever))
    return yield* body.pipe(Effect.ensuring(Fiber.interrupt(ticker)))
  })

/** D-94: a count between "Counting" (0.3) and the caller's "Done", telling its seconds while it runs. */
export const counting = <A, E, R>(
  progress: (value: number, message: string) => Effect.Effect<void>,
  body: Effect.Effect<A, E, R>
) => Effect.zipRight(progress(0.3, "Counting"), withElapsedProgress(progress, "counting", body))
