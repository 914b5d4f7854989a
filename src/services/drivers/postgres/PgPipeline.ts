// One round trip of the extended protocol as a pg "Submittable" (the public extension point pg-cursor uses):
// Parse/Bind/[Describe]/Execute for every step, then a single Sync. A read is
// `BEGIN READ ONLY; SET LOCAL statement_timeout; [search path]; <statement, at most N rows>; COMMIT` in one
// round trip; the portal row limit stops the statement server-side, and COMMIT (or the ROLLBACK after an error)
// closes the portal. pg calls `handleError` and then forgets the query, so the pipeline settles on either.

/** A column of a step's rows, with its origin (table OID and column number, 0 when computed). */
export interface FieldInfo {
  readonly name: string
  readonly typeOid: number
  readonly tableOid: number
  readonly column: number
}

/** What a row sink answers: keep reading, or stop (the rest is discarded; a read is cancelled server-side). */
export type SinkVerdict = "more" | "stop"

export interface RowSink {
  readonly fields: (fields: ReadonlyArray<FieldInfo>) => void
  /** One row's values as PostgreSQL's text (null for SQL NULL) and their size in characters. */
  readonly row: (values: ReadonlyArray<string | null>, size: number) => SinkVerdict
}

export interface Step {
  readonly text: string
  readonly values?: ReadonlyArray<string | null>
  /** Rows to collect: Describe(portal) then Execute with this row limit (0: all). Steps without run for effect. */
  readonly rows?: { readonly limit: number; readonly sink: RowSink }
  /**
   * Ask the server to send what it has so far (a Flush message) after this step: the answers to the steps up to here
   * then arrive before a long statement ends, which tells a live session from one that died while idle.
   */
  readonly flush?: boolean
  /** Parse only (D-68): the server parses and analyses the statement, nothing is bound or run. */
  readonly parseOnly?: boolean
  /**
   * Reads on from the unnamed portal an earlier round trip of the same transaction left suspended (fetch_more): only
   * Execute is sent, with `rows.limit`; `text` is not sent and the sink already has the columns.
   */
  readonly resume?: boolean
}

/** How a step ended: its command tag ("SELECT 3", "UPDATE 2", "" for an empty statement), or suspended at its limit. */
export interface StepOutcome {
  readonly command: string
  readonly count: number | null
  readonly suspended: boolean
}

export interface PipelineResult {
  readonly outcomes: ReadonlyArray<StepOutcome>
  /** The sink stopped the rows and the statement was cancelled to end it (the transaction is then aborted). */
  readonly stoppedEarly: boolean
  /** Rows that arrived after a sink stopped and were dropped unread. */
  readonly discarded: number
}

/** The part of pg's wire connection a pipeline writes to. */
interface WireConnection {
  readonly stream: { cork?: () => void; uncork?: () => void }
  parse(query: { text: string; types: Array<number> }): void
  bind(config: { values: ReadonlyArray<string | null> }): void
  describe(message: { type: "P"; name: string }): void
  execute(config: { portal: string; rows: number }): void
  flush(): void
  sync(): void
  sendCopyFail(message: string): void
}

interface RawField {
  readonly name: string
  readonly tableID: number
  readonly columnID: number
  readonly dataTypeID: number
}

/** The SQLSTATE of a statement ended by a cancel request (ours, when a sink stopped the rows). */
const QUERY_CANCELED = "57014"

/** "INSERT 0 5" → INSERT, 5; "CREATE TABLE" → CREATE TABLE, no count. */
const tagOf = (text: string): StepOutcome => {
  if (!text.includes(" ")) return { command: text, count: null, suspended: false }
  const words = text.split(" ")
  const last = words[words.length - 1] ?? ""
  const count = words.length > 1 && /^\d+$/.test(last) ? Number(last) : null
  const command = words.filter((word, index) => index === 0 || !/^\d+$/.test(word)).join(" ")
  return { command, count, suspended: false }
}

export class Pipeline {
  readonly done: Promise<PipelineResult>
  /** A step completed: the server has answered part of this round trip (so it was alive when it started). */
  answered = false
  private readonly outcomes: Array<StepOutcome> = []
  private stopping = false
  private discarded = 0
  private settled = false
  private resolve!: (result: PipelineResult) => void
  private reject!: (error: unknown) => void

  /** `onStop` runs once when a sink asks to stop: the runner cancels the statement so the server stops sending. */
  constructor(readonly steps: ReadonlyArray<Step>, private readonly onStop: () => void) {
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve
      this.reject = reject
    })
  }

  private get current(): Step | undefined {
    return this.steps[this.outcomes.length]
  }

  submit(connection: WireConnection): void {
    connection.stream.cork?.()
    try {
      for (const step of this.steps) {
        if (step.resume === true) {
          connection.execute({ portal: "", rows: step.rows?.limit ?? 0 })
          continue
        }
        connection.parse({ text: step.text, types: [] })
        if (step.parseOnly === true) continue
        connection.bind({ values: step.values ?? [] })
        if (step.rows !== undefined) connection.describe({ type: "P", name: "" })
        connection.execute({ portal: "", rows: step.rows?.limit ?? 0 })
        if (step.flush === true) connection.flush()
      }
      connection.sync()
    } finally {
      connection.stream.uncork?.()
    }
  }

  handleRowDescription(message: { readonly fields: ReadonlyArray<RawField> }): void {
    this.current?.rows?.sink.fields(message.fields.map((field) => ({
      name: field.name,
      typeOid: field.dataTypeID,
      tableOid: field.tableID,
      column: field.columnID
    })))
  }

  handleDataRow(message: { readonly fields: ReadonlyArray<string | null> }): void {
    const sink = this.current?.rows?.sink
    if (sink === undefined) return
    if (this.stopping) {
      this.discarded++
      return
    }
    let size = 0
    for (const value of message.fields) size += value === null ? 0 : value.length
    if (sink.row(message.fields, size) === "stop") {
      this.stopping = true
      this.onStop()
    }
  }

  handlePortalSuspended(): void {
    this.answered = true
    this.outcomes.push({ command: "", count: null, suspended: true })
  }

  handleCommandComplete(message: { readonly text: string }): void {
    this.answered = true
    this.outcomes.push(tagOf(message.text))
  }

  handleEmptyQuery(): void {
    this.answered = true
    this.outcomes.push({ command: "", count: null, suspended: false })
  }

  handleError(error: unknown): void {
    if (this.settled) return
    this.settled = true
    if (this.stopping && (error as { code?: unknown }).code === QUERY_CANCELED) {
      this.resolve({ outcomes: this.outcomes, stoppedEarly: true, discarded: this.discarded })
    } else {
      this.reject(error)
    }
  }

  handleReadyForQuery(): void {
    if (this.settled) return
    this.settled = true
    this.resolve({ outcomes: this.outcomes, stoppedEarly: this.stopping, discarded: this.discarded })
  }

  /** A COPY … FROM STDIN never gets data from dbdesk (the classifier refuses COPY; this is the backstop). */
  handleCopyInResponse(connection: WireConnection): void {
    connection.sendCopyFail("dbdesk does not send COPY data")
  }

  handleCopyData(): void {}
}
