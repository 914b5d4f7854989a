// Who is asked about an unknown SSH host key, and the policy a tunnel checks keys with. The files decide first
// (dbdesk's own known_hosts in the support directory, then the user's); a key no file lists is asked about once —
// in the UI's dialog and on the terminal when `serve` runs in one, by `connection test` on its terminal — and, when
// accepted, written to dbdesk's own file. When nothing can ask, the key is refused with how to accept it.
import { Context, Effect, Layer } from "effect"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { hostKeyState, trustHostKey } from "./KnownHosts.ts"
import { hopName } from "./Hop.ts"
import type { SshFiles } from "./SshHops.ts"
import type { HostKeyPolicy, UnknownHostKey } from "./Tunnel.ts"

export interface HostKeyQuestion {
  readonly connectionId: string
  readonly connectionName: string
  /** The SSH host as the user named it, with its address. */
  readonly host: string
  readonly fingerprint: string
  readonly message: string
}

/** "approved"/"denied" is the user's answer; "nobody" means nothing could ask (no dialog open, no terminal). */
export type HostKeyAnswer = "approved" | "denied" | "nobody"

export class HostKeyQuestions extends Context.Tag("dbdesk/services/ssh/HostKeyQuestions")<HostKeyQuestions, {
  readonly ask: (question: HostKeyQuestion) => Effect.Effect<HostKeyAnswer>
}>() {
  /** Accepts exactly the keys whose fingerprints were given in advance; nobody is asked about others. */
  static readonly fingerprints = (accepted: ReadonlyArray<string>, asked: Array<HostKeyQuestion> = []) =>
    Layer.succeed(HostKeyQuestions, {
      ask: (question) =>
        Effect.sync(() => {
          asked.push(question)
          return accepted.includes(question.fingerprint) ? "approved" : "nobody"
        })
    })

  static readonly nobody = Layer.succeed(HostKeyQuestions, { ask: () => Effect.succeed("nobody" as const) })
}

/** dbdesk's own known_hosts file, the only one it writes. */
export const ownKnownHosts = (supportDirectory: string): string => join(supportDirectory, "known_hosts")

export const questionText = (connectionName: string, host: string, fingerprint: string): string =>
  `Trust the SSH host ${host} for '${connectionName}'? dbdesk has not seen its key before. Its fingerprint is ${fingerprint}: compare it with the one the host's administrator gives you (ssh-keygen -lf on the host's key) before you accept.`

/** OpenSSH asks and records the key in ~/.ssh/known_hosts, which dbdesk reads. */
export const sshCommandFor = (
  host: string,
  port: number
): string => (port === 22 ? `ssh ${host}` : `ssh -p ${port} ${host}`)

const howToAccept = (connectionName: string, fingerprint: string, command: string): string =>
  `check the fingerprint with the host's administrator, then accept it in dbdesk's window when it asks about '${connectionName}', or connect once with OpenSSH (${command}), which asks about ${fingerprint} and records it in ~/.ssh/known_hosts`

export const makeHostKeyPolicy = (options: {
  readonly connectionId: string
  readonly connectionName: string
  /** dbdesk's own file; absent, nothing can be remembered and unknown keys are refused. */
  readonly ownFile: string | undefined
  readonly files: SshFiles
  readonly ask: ((question: HostKeyQuestion) => Promise<HostKeyAnswer>) | undefined
}): HostKeyPolicy => {
  const files = [...(options.ownFile === undefined ? [] : [options.ownFile]), options.files.knownHosts]
  return {
    check: (hop, key) => hostKeyState(files, hop.host, hop.port, key),
    trust: (hop, key) => {
      if (options.ownFile !== undefined) trustHostKey(options.ownFile, hop.host, hop.port, key)
    },
    ask: async (unknown: UnknownHostKey) => {
      const host = hopName(unknown.hop)
      const refused = (why: string) => ({
        trusted: false as const,
        reason:
          `the SSH host ${host} of '${options.connectionName}' presented a key dbdesk does not know yet (${unknown.fingerprint}); ${why}`
      })
      if (options.ownFile === undefined || options.ask === undefined) {
        return refused(
          `nothing is open to ask you about it: ${
            howToAccept(options.connectionName, unknown.fingerprint, sshCommandFor(unknown.hop.host, unknown.hop.port))
          }`
        )
      }
      const answer = await options.ask({
        connectionId: options.connectionId,
        connectionName: options.connectionName,
        host,
        fingerprint: unknown.fingerprint,
        message: questionText(options.connectionName, host, unknown.fingerprint)
      }).catch((): HostKeyAnswer => "nobody")
      if (answer === "approved") return { trusted: true as const }
      if (answer === "denied") {
        return refused(
          `you did not accept it, so dbdesk did not connect. If the key is right, ${
            howToAccept(options.connectionName, unknown.fingerprint, sshCommandFor(unknown.hop.host, unknown.hop.port))
          }`
        )
      }
      return refused(
        `nobody answered the question about it: ${
          howToAccept(options.connectionName, unknown.fingerprint, sshCommandFor(unknown.hop.host, unknown.hop.port))
        }`
      )
    }
  }
}

/** `connection test` on a terminal: the question on stderr, anything but y/yes refuses. */
export const terminalHostKeyQuestions = (
  input: NodeJS.ReadableStream = process.stdin,
  output: NodeJS.WritableStream = process.stderr
) =>
  Layer.succeed(HostKeyQuestions, {
    ask: (question) =>
      Effect.async<HostKeyAnswer>((resume) => {
        const readline = createInterface({ input, output, terminal: false })
        output.write(`\n${question.message}\n`)
        readline.question("Accept this key? [y/N] ", (answer) => {
          resume(Effect.succeed(/^\s*y(es)?\s*$/i.test(answer) ? "approved" : "denied"))
          readline.close()
        })
        readline.once("close", () => resume(Effect.succeed("denied")))
        return Effect.sync(() => readline.close())
      })
  })
