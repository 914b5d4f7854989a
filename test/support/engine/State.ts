import type { Field } from "./Fields.ts"

export type Version = 26 | 29
export type Doc = Record<string, unknown>

export interface StoredDocument {
  readonly seq: number
  doc: Doc
}

export class Collection {
  readonly docs = new Map<string, StoredDocument>()
  nextSeq = 0
  constructor(
    readonly name: string,
    readonly createdAt: number,
    readonly creationOrder: number,
    readonly nested: boolean,
    public fields: Array<Field>,
    readonly defaultSortingField: string,
    readonly tokenSeparators: ReadonlyArray<string>,
    readonly symbolsToIndex: ReadonlyArray<string>,
    public metadata: Record<string, unknown> | undefined
  ) {}

  field(name: string): Field | undefined {
    return this.fields.find((f) => f.name === name)
  }

  /** dirty_values default (§1.2.1): `coerce_or_reject` when the schema has `.*` or a regex field. */
  get hasDynamicFields(): boolean {
    return this.fields.some((f) => f.name.includes(".*"))
  }

  /** Documents in insertion (seq id) order. */
  inSeqOrder(): Array<StoredDocument> {
    return [...this.docs.values()].sort((a, b) => a.seq - b.seq)
  }
}

export interface ApiKey {
  readonly id: number
  readonly value: string
  readonly description: string
  readonly actions: ReadonlyArray<string>
  readonly collections: ReadonlyArray<string>
  readonly expires_at: number
  readonly autodelete: boolean
}

export type RequestCategory = "search" | "import" | "write" | "delete" | "other"

export interface RequestSample {
  readonly key: string
  readonly category: RequestCategory
  readonly searches: number
  readonly latencyMs: number
  readonly at: number
}

export class EngineState {
  readonly collections = new Map<string, Collection>()
  readonly aliases = new Map<string, string>()
  readonly keys = new Map<number, ApiKey>()
  readonly samples: Array<RequestSample> = []
  nextKeyId = 0
  collectionsCreated = 0

  constructor(
    readonly version: Version,
    readonly bootstrapKey: string
  ) {}

  /** A real collection name wins over an alias of the same name (§1.5). */
  resolve(name: string): Collection | undefined {
    const direct = this.collections.get(name)
    if (direct !== undefined) return direct
    const target = this.aliases.get(name)
    return target === undefined ? undefined : this.collections.get(target)
  }

  /** The collection-not-found message of §1 ("CNF"), changed in v29 (§8). */
  get collectionNotFound(): string {
    return this.version >= 29 ? "Collection not found" : "Not Found"
  }

  /** The search path's collection-not-found message (§1.3 precedence 2). */
  get searchCollectionNotFound(): string {
    return this.version >= 29 ? "Collection not found" : "Not found."
  }
}
