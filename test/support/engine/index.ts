import { createServer as createHttpServer, type Server } from "node:http"
import { createServer as createHttpsServer } from "node:https"
import type { AddressInfo } from "node:net"
import { createCollection } from "./Collections.ts"
import { parseDocument, writeDocument } from "./DocumentWrites.ts"
import { EngineFailure } from "./Http.ts"
import { type JsonObject, parseJson } from "./Json.ts"
import { type RecordedRequest, requestListener } from "./Server.ts"
import { EngineState } from "./State.ts"
import { selfSignedCertificate } from "./Tls.ts"

export interface EngineOptions {
  version?: 26 | 29
  apiKey?: string
  https?: boolean
}

export interface RunningEngine {
  readonly url: string
  readonly host: string
  readonly port: number
  readonly apiKey: string
  /** Every HTTP request received, in order; tests may clear it with `engine.requests.length = 0`. */
  readonly requests: Array<RecordedRequest>
  /** In-process seeding (not recorded in `requests`); rejects with the engine's message on failure. */
  createCollection(schema: object): Promise<void>
  importDocuments(collection: string, docs: ReadonlyArray<object>): Promise<void>
  stop(): Promise<void>
}

const HOST = "127.0.0.1"

const seeding = <A>(run: () => A): Promise<A> => {
  try {
    return Promise.resolve(run())
  } catch (error) {
    const message = error instanceof EngineFailure ? `${error.code}: ${error.message}` : String(error)
    return Promise.reject(new Error(`engine seeding failed: ${message}`))
  }
}

/** Starts a Typesense-compatible engine on a free port of 127.0.0.1 (see README.md for what it covers). */
export const startEngine = async (options: EngineOptions = {}): Promise<RunningEngine> => {
  const version = options.version ?? 29
  const apiKey = options.apiKey ?? "bootstrap-key"
  const state = new EngineState(version, apiKey)
  const requests: Array<RecordedRequest> = []
  const listener = requestListener(state, requests)
  const server: Server = options.https === true
    ? createHttpsServer(await selfSignedCertificate(), listener)
    : createHttpServer(listener)
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, HOST, () => resolve())
  })
  const port = (server.address() as AddressInfo).port
  return {
    url: `${options.https === true ? "https" : "http"}://${HOST}:${port}`,
    host: HOST,
    port,
    apiKey,
    requests,
    createCollection: (schema) =>
      seeding(() => {
        createCollection(state, parseJson(JSON.stringify(schema)) as JsonObject)
      }),
    importDocuments: (name, docs) =>
      seeding(() => {
        const collection = state.resolve(name)
        if (collection === undefined) throw new EngineFailure(404, state.collectionNotFound)
        for (const doc of docs) writeDocument(collection, parseDocument(JSON.stringify(doc)), "create")
      }),
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)))
        server.closeAllConnections()
      })
  }
}
