/**
 * `dbdesk/search` (D-77): the search-engine (Typesense 26.0+) client of doc 2, usable without the server — a
 * per-connection HTTP client, the server and collection reads, the grid's filter compiler and the request console's
 * parser, classifier and renderer. Connection settings and errors are in `dbdesk/domain`.
 */
export { type EngineCollection, type EngineField, deriveColumns } from "./CollectionSchema.ts"
export { isExportPath, renderConsoleResponse } from "./ConsoleRender.ts"
export {
  classifyConsoleRequest,
  type ConsoleBody,
  type ConsoleMethod,
  consoleMethods,
  type ConsoleRequest,
  formatConsoleRequest,
  parseConsoleInput,
  type RequestTier
} from "./ConsoleRequest.ts"
export { compileFilter, precheckFilter } from "./FilterCompiler.ts"
export {
  countRows,
  describeCollection,
  multiSearch,
  readPage,
  type ReadPageRequest,
  type SearchParams
} from "./SearchBrowse.ts"
export {
  apiKeyHeader,
  type CallOptions,
  type EngineBody,
  engineMessage,
  type EngineMethod,
  enginePath,
  type EngineResponse,
  makeSearchClient,
  makeSearchClientWith,
  MAX_ENGINE_RESPONSE_BYTES,
  type SearchClient,
  type TraceContext
} from "./SearchClient.ts"
export { runConsoleInput, runConsoleRequest } from "./SearchConsole.ts"
export { searchDocuments, type SearchDocumentsRequest, searchInsertRows } from "./SearchDocuments.ts"
export {
  type CollectionListing,
  connect,
  engineMajor,
  listCollections,
  minimumEngineMajor,
  type ServerInfo as EngineServerInfo
} from "./SearchServer.ts"
