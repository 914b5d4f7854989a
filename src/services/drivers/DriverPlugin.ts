import type { Effect, Either, Scope } from "effect"
import type { Connection, ConnectionType } from "../../domain/Connection.ts"
import type { StatementTier } from "../../domain/StatementClassifier.ts"
import type { ToolFailure } from "../../domain/ToolErrors.ts"

export type { StatementTier }

/**
 * The one interface a loadable driver registers through (S1-b, D-55): `start` makes its
 * shared parts; `connect` opens one saved connection's session, whose methods describe, read and write; `classify`
 * gives a statement's tier (D-22); cancel is interruption — interrupting any session effect aborts
 * the work on the server (D-12); `disconnect` closes a connection that changed or went away.
 */
export interface DriverPlugin<Session> {
  readonly type: ConnectionType
  readonly title: string
  readonly start: Effect.Effect<DriverInstance<Session>, never, Scope.Scope>
}

export interface DriverInstance<Session> {
  readonly connect: (connection: Connection) => Effect.Effect<Session, ToolFailure>
  readonly classify: (statement: string) => Either.Either<StatementTier, ToolFailure>
  readonly disconnect: (connectionId: string) => Effect.Effect<void>
}
