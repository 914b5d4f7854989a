// A database session's socket through the SSH tunnel: a Duplex over one forwarded channel that pg and mysql2 take
// as their `stream`. Writes wait until the channel is open; 'connect' is emitted then, as net.Socket does.
import { Duplex } from "node:stream"
import type { ClientChannel } from "ssh2"

export class TunnelSocket extends Duplex {
  private channel: ClientChannel | undefined
  private waiting: Array<{ chunk: Buffer; callback: (error?: Error | null) => void }> = []
  connecting = true

  /** `through` names the SSH host, so a closed channel's error says where the connection went. */
  constructor(open: Promise<ClientChannel>, private readonly through: string) {
    super()
    open.then((channel) => this.attach(channel), (error: Error) => this.destroy(error))
  }

  private attach(channel: ClientChannel): void {
    if (this.destroyed) {
      channel.close()
      return
    }
    this.channel = channel
    this.connecting = false
    channel.on("data", (data: Buffer) => {
      if (!this.push(data)) channel.pause()
    })
    channel.on("end", () => this.push(null))
    channel.on("close", () => {
      if (!this.destroyed) {
        this.destroy(
          this.readableEnded
            ? undefined
            : new Error(`the connection to the database through the SSH host ${this.through} closed`)
        )
      }
    })
    channel.on("error", (error: Error) => this.destroy(error))
    for (const { chunk, callback } of this.waiting.splice(0)) channel.write(chunk, callback)
    this.emit("connect")
    this.emit("ready")
  }

  override _read(): void {
    this.channel?.resume()
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.channel === undefined) this.waiting.push({ chunk, callback })
    else this.channel.write(chunk, callback)
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (this.channel === undefined) return callback()
    this.channel.end()
    callback()
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    for (const { callback: waiting } of this.waiting.splice(0)) {
      waiting(error ?? new Error("the tunnel socket was closed"))
    }
    this.channel?.close()
    callback(error)
  }

  // net.Socket's methods pg and mysql2 call; a forwarded channel has no such settings.
  connect(): this {
    return this
  }
  setNoDelay(): this {
    return this
  }
  setKeepAlive(): this {
    return this
  }
  setTimeout(): this {
    return this
  }
  ref(): this {
    return this
  }
  unref(): this {
    return this
  }
}
