import { Options } from "@effect/cli"
import { Effect, Option } from "effect"
import * as path from "node:path"
import { parseSshAddress, type SshTunnel } from "../domain/SshTunnel.ts"

/** `connection add postgresql|mysql … --ssh user@host:port | --ssh alias`, with how to sign in and jump hosts. */
export const sshOptions = Options.all({
  ssh: Options.text("ssh").pipe(
    Options.withDescription(
      "reach the database through this SSH host: user@host:port, or an alias of ~/.ssh/config (its HostName, User, Port, IdentityFile and ProxyJump are used)"
    ),
    Options.optional
  ),
  sshKey: Options.text("ssh-key").pipe(
    Options.withDescription("sign in to the SSH host with this private key file (ed25519, ECDSA or RSA)"),
    Options.optional
  ),
  sshAgent: Options.boolean("ssh-agent").pipe(
    Options.withDescription("sign in to the SSH host with the running SSH agent (SSH_AUTH_SOCK)")
  ),
  sshPasswordEnv: Options.text("ssh-password-env").pipe(
    Options.withDescription("sign in to the SSH host with the password in this environment variable"),
    Options.optional
  ),
  sshPassphraseEnv: Options.text("ssh-passphrase-env").pipe(
    Options.withDescription(
      "the passphrase of the SSH key file, from this environment variable (stored like the password)"
    ),
    Options.optional
  ),
  sshJump: Options.text("ssh-jump").pipe(
    Options.withDescription(
      "a jump host before the SSH host (user@host:port or an alias; repeatable, the first is dialled first)"
    ),
    Options.repeated
  )
})
export interface SshFlags {
  readonly ssh: Option.Option<string>
  readonly sshKey: Option.Option<string>
  readonly sshAgent: boolean
  readonly sshPasswordEnv: Option.Option<string>
  readonly sshPassphraseEnv: Option.Option<string>
  readonly sshJump: ReadonlyArray<string>
}

const fromEnv = (flag: string, variable: string) =>
  Effect.suspend(() => {
    const value = process.env[variable]
    return value === undefined || value === ""
      ? Effect.fail(new Error(`--${flag}: the environment variable ${variable} is not set`))
      : Effect.succeed(value)
  })

/** The connection's `ssh` field from the flags; undefined without --ssh (other --ssh-… flags then are a mistake). */
export const sshFromFlags = (flags: SshFlags) =>
  Effect.gen(function*() {
    if (Option.isNone(flags.ssh)) {
      const stray = Option.isSome(flags.sshKey) || flags.sshAgent || Option.isSome(flags.sshPasswordEnv) ||
        Option.isSome(flags.sshPassphraseEnv) || flags.sshJump.length > 0
      if (stray) {
        return yield* Effect.fail(
          new Error(
            "--ssh-key, --ssh-agent, --ssh-password-env, --ssh-passphrase-env and --ssh-jump need --ssh (the SSH host or alias)"
          )
        )
      }
      return undefined
    }
    const chosen =
      [Option.isSome(flags.sshKey), flags.sshAgent, Option.isSome(flags.sshPasswordEnv)].filter(Boolean).length
    if (chosen > 1) {
      return yield* Effect.fail(
        new Error("choose one way to sign in to the SSH host: --ssh-key, --ssh-agent or --ssh-password-env")
      )
    }
    const address = parseSshAddress(flags.ssh.value)
    const password = Option.isSome(flags.sshPasswordEnv)
      ? yield* fromEnv("ssh-password-env", flags.sshPasswordEnv.value)
      : undefined
    const passphrase = Option.isSome(flags.sshPassphraseEnv)
      ? yield* fromEnv("ssh-passphrase-env", flags.sshPassphraseEnv.value)
      : undefined
    const ssh: Record<string, unknown> = {
      host: address.host,
      ...(address.port === undefined ? {} : { port: address.port }),
      ...(address.user === undefined ? {} : { user: address.user }),
      ...(Option.isSome(flags.sshKey) ? { auth: "key", keyFile: path.resolve(flags.sshKey.value) } : {}),
      ...(flags.sshAgent ? { auth: "agent" } : {}),
      ...(password === undefined ? {} : { auth: "password", password }),
      ...(passphrase === undefined ? {} : { passphrase }),
      ...(flags.sshJump.length === 0 ? {} : { jumps: flags.sshJump })
    }
    return ssh as unknown as SshTunnel
  })
