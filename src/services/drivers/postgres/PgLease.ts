// One leased session of a call and what the call did to it (D-73): the round trips it sends, the cancel request
// for the statement running when the call is stopped, and the way back: clean (idle, no transaction, no portal,
// settings as the session started) or destroyed.
import { DriverError } from "../Driver.ts"
import { sendCancel } from "./PgCancel.ts"
import { Pipeline, type PipelineResult, type Step } from "./PgPipeline.ts"
import { destroyClient, type PooledClient } from "./PgPools.ts"
import { isSessionLoss } from "./PostgresErrors.ts"

/** How long a stopped call waits for its session to come back before destroying it. */
export const SETTLE_MS = 3000
/** ROLLBACK or DISCARD ALL taking longer than this means the session is not healthy: destroy it. */
export const CLEANUP_MS = 5000

/** Waits for `promise` at most `ms`: "done", "failed" (it rejected; the rejection is handled) or "late". */
const outcomeWithin = (promise: Promise<unknown>, ms: number): Promise<"done" | "failed" | "late"> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve("late"), ms)
    void promise.then(() => "done" as const, () => "failed" as const).then((outcome) => {
      clearTimeout(timer)
      resolve(outcome)
    })
  })

/** True when `promise` settled (either way) within `ms`. */
export const within = async (promise: Promise<unknown>, ms: number): Promise<boolean> =>
  (await outcomeWithin(promise, ms)) !== "late"

/** True when `promise` resolved within `ms`. */
const succeededWithin = async (promise: Promise<unknown>, ms: number): Promise<boolean> =>
  (await outcomeWithin(promise, ms)) === "done"

/** PostgreSQL's own words for a NUL byte in text (SQLSTATE 22021), and why the statement was not sent. */
const NUL_IN_TEXT =
  "invalid byte sequence for encoding \"UTF8\": 0x00 (PostgreSQL cannot take the NUL character in a statement, so it was not sent)"

/** The call was stopped (interrupted or past its deadline): no further round trip starts. */
export class Stopped extends Error {}

/** A reused session that was already dead: the call is retried on another one. */
export class StaleSession extends Error {}

/** The safety net closed this connection's sessions after an unexpected failure in the driver. */
export class DriverFault extends Error {}

/** One leased session and what its call did to it. */
export class Lease {
  inFlight: Pipeline | undefined
  cancel: Promise<boolean> | undefined
  stopped = false
  needsRollback = false
  /** Session-level state changed (SET, a user's statement): DISCARD ALL before the session is reused. */
  tainted = false
  private submitted = 0

  constructor(
    readonly client: PooledClient,
    private readonly server: {
      readonly host: string
      readonly port: number
      readonly tunnel?: { readonly socket: () => import("node:stream").Duplex }
    }
  ) {}

  submit(steps: ReadonlyArray<Step>): Promise<PipelineResult> {
    if (this.stopped) return Promise.reject(new Stopped())
    // The protocol sends statement text NUL-terminated: a NUL inside would garble the message and cost the session.
    if (steps.some((step) => step.text.includes("\u0000"))) {
      return Promise.reject(new DriverError({ message: NUL_IN_TEXT }))
    }
    const first = this.submitted++ === 0
    const pipeline = new Pipeline(steps, () => this.cancelRunning())
    this.inFlight = pipeline
    this.client.query(pipeline as never)
    return pipeline.done.then((result) => {
      this.inFlight = undefined
      if (result.stoppedEarly) this.needsRollback = true
      return result
    }, (error: unknown) => {
      this.inFlight = undefined
      this.needsRollback = true
      // The socket died under a statement: the backend may still be running it (a reset between us and the
      // server), so it is cancelled too; the session itself is destroyed without waiting for that.
      if (this.client.lost !== undefined && pipeline.answered) this.cancelRunning()
      if (
        first && !pipeline.answered && this.client.uses > 1 && isSessionLoss(error) &&
        !(this.client.lost instanceof DriverFault)
      ) {
        throw new StaleSession()
      }
      throw error
    })
  }

  /** Sends the protocol cancel request for the statement running now (once per call). */
  cancelRunning(): void {
    this.cancel ??= sendCancel(
      this.server.host,
      this.server.port,
      this.client.processID,
      this.client.secretKey,
      this.server.tunnel?.socket
    )
  }

  /** Cancels the running statement; a session that does not answer within SETTLE_MS after the cancel is destroyed. */
  stop(): void {
    this.stopped = true
    const running = this.inFlight
    if (running === undefined) return
    this.cancelRunning()
    void this.cancel?.then(() => within(running.done, SETTLE_MS)).then((settled) => {
      if (!settled) destroyClient(this.client, new Error("the cancelled statement did not end"))
    })
  }

  /**
   * ROLLBACK as one pipeline step (our own light submittable rather than pg's Query: a held read that was not cut
   * ends with it on every call).
   */
  private rollback(): Promise<PipelineResult> {
    const pipeline = new Pipeline([{ text: "ROLLBACK" }], () => this.cancelRunning())
    this.client.query(pipeline as never)
    return pipeline.done
  }

  /** Gives the session back clean (idle, no transaction, settings as started) or destroys it. */
  async finish(): Promise<void> {
    const { client } = this
    const destroy = (reason: string) => {
      destroyClient(client, new Error(reason))
      client.release(true)
    }
    if (client.lost !== undefined || !client._queryable) return destroy("the session was lost")
    if (this.inFlight !== undefined && !(await within(this.inFlight.done, SETTLE_MS))) {
      return destroy("the stopped statement did not end")
    }
    // A cancel still on its way could end the next call's statement on this session.
    if (this.cancel !== undefined && !(await this.cancel)) return destroy("the cancel request was not delivered")
    if (client.lost !== undefined || !client._queryable) return destroy("the session was lost")
    try {
      if (this.needsRollback || client.getTransactionStatus() !== "I") {
        if (!(await succeededWithin(this.rollback(), CLEANUP_MS)) || client.getTransactionStatus() !== "I") {
          return destroy("ROLLBACK failed")
        }
      }
      if (this.tainted && !(await succeededWithin(client.query("DISCARD ALL"), CLEANUP_MS))) {
        return destroy("DISCARD ALL failed")
      }
      if (client.lost !== undefined || client.getTransactionStatus() !== "I") return destroy("the session was lost")
      client.release()
    } catch {
      destroy("cleanup failed")
    }
  }
}
