import { Clock, Duration, Effect, Exit, Fiber, Schedule } from "effect"
import type { RequestId } from "../domain/JsonRpc.ts"
import { ProtocolError } from "../domain/ProtocolErrors.ts"

type Running = Fiber.RuntimeFiber<unknown, unknown>

/** A request's deadline: when it falls due (Clock millis) and the error it then ends with. */
export interface Deadline {
  readonly seconds: number
  readonly onTimeout: () => ProtocolError
}

/** How often running requests are checked against their deadline: a deadline fires within this after it falls due. */
export const DEADLINE_CHECK = Duration.seconds(1)

interface Watched {
  readonly fiber: Running
  readonly dueAt: number
  timedOut: boolean
}

/**
 * D-38: every running request is registered per
 * (principal, request id) as a multimap, so a cancel interrupts every match of that principal
 * and nothing of another (wire contract §3.2, C3.2-g). Deadlines are checked by one fiber for all
 * requests, on Effect's Clock: a timer per request (Effect.timeoutFail races two fibers) cost more
 * than the rest of a cached answer (D-84).
 */
export class RequestRegistry extends Effect.Service<RequestRegistry>()("dbdesk/services/RequestRegistry", {
  scoped: Effect.gen(function*() {
    const running = new Map<string, Set<Running>>()
    const watched = new Set<Watched>()
    const keyOf = (principalKey: string, id: RequestId) => `${principalKey}\u0000${typeof id}:${String(id)}`

    const sweep = Effect.clockWith((clock) =>
      Effect.suspend(() => {
        const now = clock.unsafeCurrentTimeMillis()
        const due = [...watched].filter((entry) => !entry.timedOut && entry.dueAt <= now)
        for (const entry of due) entry.timedOut = true
        return Effect.forEach(due, (entry) => Fiber.interruptFork(entry.fiber), { discard: true })
      })
    )
    // The checker sleeps on a latch while no request has a deadline, so an idle server (or a TestClock jump) costs nothing.
    const busy = yield* Effect.makeLatch(false)
    yield* Effect.forkScoped(Effect.forever(Effect.gen(function*() {
      yield* busy.await
      yield* Effect.sleep(DEADLINE_CHECK)
      yield* sweep
      // Checked and closed in one synchronous step, so a request watched in between always finds the latch open.
      yield* Effect.sync(() => {
        if (watched.size === 0) busy.unsafeClose()
      })
    })))

    const track = <A, E>(
      principalKey: string,
      id: RequestId,
      work: Effect.Effect<A, E>,
      deadline?: Deadline
    ): Effect.Effect<A, E | ProtocolError> =>
      Effect.gen(function*() {
        const key = keyOf(principalKey, id)
        const fiber = yield* Effect.fork(work)
        const set = running.get(key) ?? new Set<Running>()
        set.add(fiber)
        running.set(key, set)
        const entry: Watched | undefined = deadline === undefined
          ? undefined
          : {
            fiber: fiber,
            dueAt: (yield* Clock.currentTimeMillis) + deadline.seconds * 1000,
            timedOut: false
          }
        if (entry !== undefined) {
          watched.add(entry)
          busy.unsafeOpen()
        }
        const exit = yield* Fiber.await(fiber).pipe(
          Effect.onInterrupt(() => Fiber.interrupt(fiber)),
          Effect.ensuring(Effect.sync(() => {
            set.delete(fiber)
            if (set.size === 0 && running.get(key) === set) running.delete(key)
            if (entry !== undefined) watched.delete(entry)
          }))
        )
        if (Exit.isInterrupted(exit)) {
          if (entry?.timedOut === true && deadline !== undefined) return yield* Effect.fail(deadline.onTimeout())
          return yield* Effect.fail(ProtocolError.of(-33002, "Request cancelled", { requestId: id }))
        }
        return yield* exit
      })

    /** Interrupts every running request of this principal with this id; returns how many matched. */
    const cancel = (principalKey: string, id: RequestId) =>
      Effect.suspend(() => {
        const set = running.get(keyOf(principalKey, id))
        if (set === undefined) return Effect.succeed(0)
        const fibers = [...set]
        return Effect.as(
          Effect.forEach(fibers, (fiber) => Fiber.interruptFork(fiber), { discard: true }),
          fibers.length
        )
      })

    /** Interrupts every running request whose principal key satisfies `matches` (token revocation). */
    const cancelWhere = (matches: (principalKey: string) => boolean) =>
      Effect.suspend(() => {
        const fibers = [...running.entries()]
          .filter(([key]) => matches(key.slice(0, key.indexOf("\u0000"))))
          .flatMap(([, set]) => [...set])
        return Effect.as(
          Effect.forEach(fibers, (fiber) => Fiber.interruptFork(fiber), { discard: true }),
          fibers.length
        )
      })

    const size = Effect.sync(() => [...running.values()].reduce((total, set) => total + set.size, 0))

    // Finalizers run uninterruptibly; the wait is made interruptible so its own timeout can end it.
    const emptied = (within: Duration.DurationInput) =>
      size.pipe(
        Effect.repeat({ until: (count) => count === 0, schedule: Schedule.spaced("20 millis") }),
        Effect.interruptible,
        Effect.timeoutOption(within),
        Effect.flatMap(() => size)
      )

    /**
     * Graceful shutdown (issue "Requests in flight"): lets running requests finish for at most
     * `grace`, then cancels the rest so each still gets its JSON-RPC answer (-33002).
     */
    const drain = (grace: Duration.DurationInput = "10 seconds") =>
      Effect.gen(function*() {
        const left = yield* emptied(grace)
        if (left === 0) return 0
        const cancelled = yield* cancelWhere(() => true)
        yield* emptied("2 seconds")
        // Let the cancelled requests' answers reach their sockets before they close.
        yield* Effect.interruptible(Effect.sleep("100 millis"))
        return cancelled
      })

    return { track, cancel, cancelWhere, size, drain } as const
  })
}) {}
