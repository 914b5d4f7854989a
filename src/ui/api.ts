import { FetchHttpClient, HttpApiClient } from "@effect/platform"
import { Effect } from "effect"
import { useCallback, useEffect, useState } from "react"
import { UiApi } from "../domain/UiApi.ts"

/** The typed client, derived from the same HttpApi the server implements (house-style §6). */
const clientPromise = Effect.runPromise(
  HttpApiClient.make(UiApi, { baseUrl: location.origin }).pipe(Effect.provide(FetchHttpClient.layer))
)
export type Client = Awaited<typeof clientPromise>

/** Words a person can act on, whatever failed (the server's own message when it sent one). */
export const errorText = (error: unknown): string => {
  if (typeof error === "object" && error !== null) {
    const tagged = error as { _tag?: string; message?: unknown; reason?: string }
    if (tagged._tag === "UiError" || tagged._tag === "UiNotFound") return String(tagged.message)
    if (tagged._tag === "RequestError") return "dbdesk is not reachable. Is `dbdesk serve` still running?"
    if (tagged._tag === "ResponseError") {
      return tagged.reason === "StatusCode"
        ? "dbdesk refused the request. Open the UI again from the address printed in the terminal."
        : "dbdesk sent an answer the UI cannot read."
    }
    if (typeof tagged.message === "string") return tagged.message
  }
  return String(error)
}

/** Runs one API call; the promise rejects with an Error whose message is ready to show. `signal` abandons it. */
export const call = async <A>(f: (client: Client) => Effect.Effect<A, unknown>, signal?: AbortSignal): Promise<A> => {
  const client = await clientPromise
  const result = await Effect.runPromise(Effect.either(f(client)), signal === undefined ? undefined : { signal })
  if (result._tag === "Left") throw new Error(errorText(result.left))
  return result.right
}

export interface Loaded<A> {
  readonly data: A | undefined
  readonly error: string | undefined
  readonly loading: boolean
  readonly reload: () => void
}

/** Loads on mount and whenever `deps` change; `reload` loads again. */
export const useLoad = <A>(
  f: (client: Client) => Effect.Effect<A, unknown>,
  deps: ReadonlyArray<unknown>
): Loaded<A> => {
  const [state, setState] = useState<{ data: A | undefined; error: string | undefined; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true
  })
  const [tick, setTick] = useState(0)
  useEffect(() => {
    let live = true
    setState((previous) => ({ ...previous, loading: true }))
    call(f).then(
      (data) => live && setState({ data, error: undefined, loading: false }),
      (error: Error) => live && setState((previous) => ({ data: previous.data, error: error.message, loading: false }))
    )
    return () => {
      live = false
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick])
  const reload = useCallback(() => setTick((n) => n + 1), [])
  return { ...state, reload }
}
