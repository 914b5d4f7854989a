// One SSH session per connection (through its jump hosts), shared by all of its database sessions: each opens a
// forwarded channel (direct-tcpip) to the database. Host keys are checked on every handshake against the
// known_hosts files; an unknown key is asked about and the handshake retried with the answer, a changed one refused.
// A session that dies fails the channels on it; the next socket opens a new session.
import { readFileSync } from "node:fs"
import type { Duplex } from "node:stream"
import { Client, type ClientChannel, type ConnectConfig } from "ssh2"
import { fingerprintOf, hostEntryName, type HostKeyState } from "./KnownHosts.ts"
import { type Hop, hopName } from "./SshHops.ts"
import { TunnelSocket } from "./TunnelSocket.ts"

/** Which hop of the path failed: the SSH host (unreachable, its key, the sign-in) or the database behind it. */
export type TunnelStage = "reach" | "hostKey" | "auth" | "database" | "closed"

export class TunnelFailure extends Error {
  constructor(readonly stage: TunnelStage, readonly hop: string, message: string) {
    super(message)
  }
}

/** A key no file lists, as presented; the question is asked between two handshakes. */
export interface UnknownHostKey {
  readonly hop: Hop
  readonly key: Buffer
  readonly fingerprint: string
}

export interface HostKeyPolicy {
  readonly check: (hop: Hop, key: Buffer) => HostKeyState
  /** Asks the user about an unknown key; the text explains how to accept it when nothing can ask. */
  readonly ask: (
    question: UnknownHostKey
  ) => Promise<{ readonly trusted: true } | { readonly trusted: false; readonly reason: string }>
  readonly trust: (hop: Hop, key: Buffer) => void
}

export interface TunnelOptions {
  /** The connection's name, for messages. */
  readonly connection: string
  readonly hops: ReadonlyArray<Hop>
  readonly target: { readonly host: string; readonly port: number }
  readonly hostKeys: HostKeyPolicy
  readonly agent: string | undefined
  readonly keepaliveMs?: number
}

export interface Tunnel {
  /** A socket to the database through the tunnel (pg's and mysql2's `stream`). */
  readonly socket: () => TunnelSocket
  /** Opens the SSH session now (connection test); rejects with a TunnelFailure. */
  readonly open: () => Promise<void>
  readonly close: () => void
  /** "through jump → bastion", for messages and doctor. */
  readonly path: string
  /** Tells `listener` each host key checked and what the files said (doctor's report). */
  readonly onHostKey: (listener: (hop: Hop, key: Buffer, state: HostKeyState) => void) => void
}

const KEEPALIVE_MS = 5_000
const KEEPALIVE_COUNT = 3
const HANDSHAKE_MS = 20_000

/**
 * A jump host's channel carrying the next hop's SSH connection: when the next host goes away the jump host only sends
 * EOF; the channel is closed on our side too, so the next hop's client sees its transport close at once.
 */
const halfClosedEnds = (channel: ClientChannel): ClientChannel => {
  channel.once("end", () => channel.close())
  return channel
}

const changedText = (
  connection: string,
  hop: Hop,
  presented: string,
  state: Extract<HostKeyState, { kind: "changed" | "revoked" }>
): string =>
  state.kind === "revoked"
    ? `the SSH host ${
      hopName(hop)
    } of '${connection}' presented a key marked revoked in ${state.file} (${presented}); dbdesk refuses it`
    : `WARNING: the key of the SSH host ${hopName(hop)} of '${connection}' has changed: it was ${
      state.known.join(", ")
    } (in ${state.file}) and is now ${presented}. ` +
      `Someone could be intercepting the connection, or the host was reinstalled. dbdesk refuses it. If the change is expected, check the new fingerprint with the host's administrator, ` +
      `then remove the old key with: ssh-keygen -R '${
        hostEntryName(hop.host, hop.port)
      }' -f ${state.file}, and accept the new one when dbdesk asks`

export const makeTunnel = (options: TunnelOptions): Tunnel => {
  const { hops, connection } = options
  let session: Promise<ReadonlyArray<Client>> | undefined
  const open = new Set<TunnelSocket>()
  let closed = false
  const listeners: Array<(hop: Hop, key: Buffer, state: HostKeyState) => void> = []

  const authOf = (hop: Hop): Partial<ConnectConfig> => {
    switch (hop.auth) {
      case "agent":
        if (options.agent === undefined) {
          throw new TunnelFailure(
            "auth",
            hopName(hop),
            `no SSH agent is running for dbdesk (SSH_AUTH_SOCK is not set), so it cannot sign in to ${
              hopName(hop)
            } of '${connection}'`
          )
        }
        return { agent: options.agent }
      case "password":
        if (hop.password === undefined) {
          throw new TunnelFailure(
            "auth",
            hopName(hop),
            `'${connection}' has no SSH password stored for ${hopName(hop)}`
          )
        }
        return { password: hop.password }
      case "key": {
        if (hop.keyFile === undefined) {
          throw new TunnelFailure("auth", hopName(hop), `'${connection}' names no SSH key file for ${hopName(hop)}`)
        }
        let privateKey: Buffer
        try {
          privateKey = readFileSync(hop.keyFile)
        } catch (error) {
          throw new TunnelFailure(
            "auth",
            hopName(hop),
            `cannot read the SSH key file ${hop.keyFile} of '${connection}': ${(error as Error).message}`
          )
        }
        return { privateKey, ...(hop.passphrase === undefined ? {} : { passphrase: hop.passphrase }) }
      }
    }
  }

  /** One handshake and sign-in; resolves the client, or an unknown key to ask about. */
  const connectHop = (hop: Hop, sock: Duplex | undefined): Promise<Client | UnknownHostKey> =>
    new Promise((resolve, reject) => {
      const client = new Client()
      let refusal: TunnelFailure | undefined
      let unknown: UnknownHostKey | undefined
      let settled = false
      const name = hopName(hop)
      const settle = (outcome: () => void) => {
        if (settled) return
        settled = true
        outcome()
      }
      client.on("ready", () => settle(() => resolve(client)))
      client.on("error", (error: Error & { level?: string }) => {
        client.end()
        settle(() => {
          if (unknown !== undefined) return resolve(unknown)
          if (refusal !== undefined) return reject(refusal)
          if (error.level === "client-authentication") {
            return reject(
              new TunnelFailure(
                "auth",
                name,
                `the SSH host ${name} of '${connection}' refused the sign-in of ${hop.user} (${
                  hop.auth === "key" ? `key ${hop.keyFile}` : hop.auth
                })`
              )
            )
          }
          if (/passphrase|encrypted|Cannot parse privateKey/i.test(error.message)) {
            return reject(
              new TunnelFailure(
                "auth",
                name,
                `the SSH key file ${hop.keyFile ?? ""} of '${connection}' cannot be used: ${error.message}`
              )
            )
          }
          reject(
            new TunnelFailure("reach", name, `cannot reach the SSH host ${name} of '${connection}': ${error.message}`)
          )
        })
      })
      client.on(
        "close",
        () =>
          settle(() =>
            reject(
              refusal ??
                new TunnelFailure(
                  "reach",
                  name,
                  `the SSH host ${name} of '${connection}' closed the connection during the handshake`
                )
            )
          )
      )
      try {
        client.connect({
          ...(sock === undefined ? { host: hop.host, port: hop.port } : { sock }),
          username: hop.user,
          ...authOf(hop),
          // Every key is checked: the files decide, an unknown key is asked about before a new handshake.
          hostVerifier: (key: Buffer): boolean => {
            const state = options.hostKeys.check(hop, key)
            for (const listener of listeners) listener(hop, key, state)
            if (state.kind === "known") return true
            if (state.kind === "unknown") unknown = { hop, key, fingerprint: fingerprintOf(key) }
            else refusal = new TunnelFailure("hostKey", name, changedText(connection, hop, fingerprintOf(key), state))
            return false
          },
          keepaliveInterval: options.keepaliveMs ?? KEEPALIVE_MS,
          keepaliveCountMax: KEEPALIVE_COUNT,
          readyTimeout: HANDSHAKE_MS
        })
      } catch (error) {
        const text = (error as Error).message
        settle(() =>
          reject(
            error instanceof TunnelFailure ? error : new TunnelFailure(
              "auth",
              name,
              /passphrase/i.test(text)
                ? `the SSH key file ${
                  hop.keyFile ?? ""
                } of '${connection}' is encrypted and no passphrase is stored for it: store it with the connection`
                : `the SSH key file ${hop.keyFile ?? ""} of '${connection}' cannot be used: ${text}`
            )
          )
        )
      }
    })

  /** A channel from `from` to the next hop (`to`) or, without one, to the database. */
  const forward = (
    client: Client,
    host: string,
    port: number,
    stage: TunnelStage,
    from: Hop,
    to?: Hop
  ): Promise<ClientChannel> =>
    new Promise((resolve, reject) =>
      client.forwardOut("127.0.0.1", 0, host, port, (error, channel) =>
        error === undefined || error === null
          ? resolve(channel)
          : reject(
            to === undefined
              ? new TunnelFailure(
                stage,
                hopName(from),
                `the SSH host ${
                  hopName(from)
                } of '${connection}' could not open a connection to the database at ${host}:${port}: ${error.message}`
              )
              : new TunnelFailure(
                stage,
                hopName(to),
                `cannot reach the SSH host ${hopName(to)} of '${connection}' through ${hopName(from)}: ${error.message}`
              )
          ))
    )

  const openChain = async (): Promise<ReadonlyArray<Client>> => {
    const clients: Array<Client> = []
    try {
      let sock: Duplex | undefined
      for (const [index, hop] of hops.entries()) {
        let client = await connectHop(hop, sock)
        if (!(client instanceof Client)) {
          const answer = await options.hostKeys.ask(client)
          if (!answer.trusted) throw new TunnelFailure("hostKey", hopName(hop), answer.reason)
          options.hostKeys.trust(hop, client.key)
          // A new handshake: the trusted key is checked again like any other.
          sock = index === 0
            ? undefined
            : halfClosedEnds(await forward(clients[index - 1]!, hop.host, hop.port, "reach", hops[index - 1]!, hop))
          client = await connectHop(hop, sock)
          if (!(client instanceof Client)) {
            throw new TunnelFailure(
              "hostKey",
              hopName(hop),
              `the SSH host ${
                hopName(hop)
              } of '${connection}' presented another unknown key after the first was accepted; dbdesk refuses it`
            )
          }
        }
        clients.push(client)
        const next = hops[index + 1]
        if (next !== undefined) sock = halfClosedEnds(await forward(client, next.host, next.port, "reach", hop, next))
      }
    } catch (error) {
      for (const client of clients.reverse()) client.end()
      throw error
    }
    return clients
  }

  const lost = (which: Promise<ReadonlyArray<Client>> | undefined, failure: TunnelFailure) => {
    if (which === undefined || session !== which) return
    session = undefined
    void which.then((clients) => clients.forEach((client) => client.end()), () => undefined)
    for (const socket of open) socket.destroy(failure)
  }

  const ensure = (): Promise<ReadonlyArray<Client>> => {
    if (closed) {
      return Promise.reject(
        new TunnelFailure("closed", hopName(hops[hops.length - 1]!), `the connection '${connection}' was closed`)
      )
    }
    if (session === undefined) {
      const opening = openChain()
      session = opening
      const last = hops[hops.length - 1]!
      opening.then((clients) => {
        for (const client of clients) {
          client.on("error", () => undefined)
          client.on(
            "close",
            () =>
              lost(
                opening,
                new TunnelFailure(
                  "closed",
                  hopName(last),
                  `the SSH tunnel of '${connection}' through ${hopName(last)} closed`
                )
              )
          )
        }
      }, () => {
        if (session === opening) session = undefined
      })
    }
    return session
  }

  const socket = (): TunnelSocket => {
    const channel = ensure().then((clients) =>
      forward(
        clients[clients.length - 1]!,
        options.target.host,
        options.target.port,
        "database",
        hops[hops.length - 1]!
      )
    )
    const made = new TunnelSocket(channel, hopName(hops[hops.length - 1]!))
    open.add(made)
    made.once("close", () => open.delete(made))
    return made
  }

  return {
    socket,
    open: () => ensure().then(() => undefined),
    close: () => {
      closed = true
      const which = session
      session = undefined
      void which?.then((clients) => clients.forEach((client) => client.end()), () => undefined)
      for (const made of open) made.destroy()
    },
    path: hops.map(hopName).join(" → "),
    onHostKey: (listener) => void listeners.push(listener)
  }
}
