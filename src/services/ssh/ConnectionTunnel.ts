import { type Context, Effect, Option, Redacted } from "effect"
import type { MysqlConnection, PostgresConnection } from "../../domain/Connection.ts"
import type { Approvals } from "../Approvals.ts"
import type { SupportFiles } from "../SupportDirectory.ts"
import {
  type HostKeyAnswer,
  type HostKeyQuestion,
  type HostKeyQuestions,
  makeHostKeyPolicy,
  ownKnownHosts
} from "./HostKeys.ts"
import { resolveHops, sshFiles } from "./SshHops.ts"
import { makeTunnel, type Tunnel } from "./Tunnel.ts"

/** How long a host-key question waits for an answer before the key is refused (it can be asked again). */
const QUESTION_SECONDS = 120

export type TunnelledConnection = PostgresConnection | MysqlConnection

/** The services a tunnel may use, captured when the Drivers layer is built (none of them loads ssh2). */
export interface TunnelServices {
  readonly paths: Option.Option<SupportFiles>
  readonly questions: Option.Option<Context.Tag.Service<HostKeyQuestions>>
  readonly approvals: Option.Option<Approvals>
}

/**
 * What tunnels need from the running program: dbdesk's support directory (its known_hosts) and who can be asked.
 * A HostKeyQuestions service wins (the CLI); else the app's approval dialog (the UI, and the terminal under serve).
 */
export const tunnelEnvironment = ({ paths, questions, approvals }: TunnelServices) => {
  const ask: ((question: HostKeyQuestion) => Promise<HostKeyAnswer>) | undefined = Option.isSome(questions)
    ? (question) => Effect.runPromise(questions.value.ask(question))
    : Option.isSome(approvals)
    ? (question) =>
      Effect.runPromise(
        approvals.value.ask({
          kind: "host_key",
          message: question.message,
          connectionId: question.connectionId,
          connectionName: question.connectionName,
          principal: "dbdesk"
        }).pipe(Effect.timeoutTo({
          duration: `${QUESTION_SECONDS} seconds`,
          onTimeout: (): HostKeyAnswer => "nobody",
          onSuccess: (decision): HostKeyAnswer => decision
        }))
      )
    : undefined
  return { ownFile: Option.isSome(paths) ? ownKnownHosts(paths.value.directory) : undefined, files: sshFiles(), ask }
}
export type TunnelEnvironment = ReturnType<typeof tunnelEnvironment>

/** The tunnel of a connection that has SSH fields; the database's host and port are dialled from the last SSH host. */
export const tunnelOf = (
  connection: TunnelledConnection,
  environment: TunnelEnvironment,
  keepaliveMs?: number
): Tunnel | undefined => {
  const ssh = connection.ssh
  if (ssh === undefined) return undefined
  const secrets = {
    passphrase: ssh.passphrase === undefined ? undefined : Redacted.value(ssh.passphrase),
    password: ssh.password === undefined ? undefined : Redacted.value(ssh.password)
  }
  return makeTunnel({
    connection: connection.name,
    hops: resolveHops(ssh, secrets, environment.files),
    target: { host: connection.host, port: connection.port },
    hostKeys: makeHostKeyPolicy({
      connectionId: connection.id,
      connectionName: connection.name,
      ownFile: environment.ownFile,
      files: environment.files,
      ask: environment.ask
    }),
    agent: environment.files.agent,
    ...(keepaliveMs === undefined ? {} : { keepaliveMs })
  })
}
