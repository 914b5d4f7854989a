import { Context, Effect, Either, Layer } from "effect"
import type { AnswerLimits } from "../../domain/AnswerBudget.ts"
import type { Connection } from "../../domain/Connection.ts"
import type { BrowseFilter, BrowseQuery, FilterLogic } from "../../domain/SqlBrowse.ts"
import { toolFailure } from "../../domain/ToolErrors.ts"
import type { MaskingRuleSpec } from "../../domain/ColumnGuard.ts"
import type { CallOptions, SearchClient } from "../../search/SearchClient.ts"
import { SearchClients } from "../../search/SearchClients.ts"
import { searchDocuments, searchInsertRows, type SearchDocumentsRequest } from "../../search/SearchDocuments.ts"
import { connect } from "../../search/SearchServer.ts"
import {
  classifySearchConsoleText,
  searchBrowseTable,
  searchCountRows,
  searchDescribeTable,
  searchExecute,
  searchListTables,
  toToolFailure
} from "../../search/SearchTools.ts"
import type { DriverPlugin } from "./DriverPlugin.ts"
import type { ConnectionStatus } from "./Driver.ts"

/** The open session of one search connection: every call takes the trace context of its MCP call (C2.2-f). */
const makeSearchSession = (client: SearchClient) => ({
  /** The connection's REST client, for the approval's check and dry run (D-69). */
  client,
  status: (options?: CallOptions) =>
    connect(client, options).pipe(
      Effect.map((info): ConnectionStatus => ({
        status: "connected",
        ...(info.version === undefined ? {} : { server_version: info.version })
      })),
      Effect.catchAll((error) => Effect.succeed<ConnectionStatus>({ status: "error", error: error.message }))
    ),
  listTables: (includeRowCounts: boolean, options?: CallOptions) => searchListTables(client, includeRowCounts, options),
  describeTable: (table: string, options?: CallOptions) => searchDescribeTable(client, table, options),
  browse: (
    table: string,
    query: BrowseQuery,
    defaultRows: number,
    options?: CallOptions,
    limits?: AnswerLimits,
    rules?: ReadonlyArray<MaskingRuleSpec>
  ) => searchBrowseTable(client, table, query, defaultRows, options, limits, rules),
  count: (table: string, filters: ReadonlyArray<BrowseFilter>, logic: FilterLogic, options?: CallOptions) =>
    searchCountRows(client, table, filters, logic, options),
  execute: (
    text: string,
    maxRows: number,
    options?: CallOptions,
    limits?: AnswerLimits,
    rules?: ReadonlyArray<MaskingRuleSpec>
  ) => searchExecute(client, text, maxRows, options, limits, rules),
  search: (
    request: SearchDocumentsRequest,
    options?: CallOptions,
    limits?: AnswerLimits,
    rules?: ReadonlyArray<MaskingRuleSpec>
  ) => searchDocuments(client, request, options, limits, rules),
  insertRows: (
    collection: string,
    columns: ReadonlyArray<string>,
    rows: ReadonlyArray<ReadonlyArray<unknown>>,
    options?: CallOptions
  ) => searchInsertRows(client, collection, columns, rows, options)
})

export type SearchSession = ReturnType<typeof makeSearchSession>

/** The search-engine driver, loaded by the driver registry with a dynamic import (D-55). */
export const searchDriver: DriverPlugin<SearchSession> = {
  type: "search",
  title: "Typesense (search engine)",
  start: Effect.gen(function*() {
    const clients = Context.get(yield* Layer.build(SearchClients.Default), SearchClients)
    return {
      connect: (connection: Connection) =>
        connection.type !== "search"
          ? Effect.fail(toolFailure("unsupported", `'${connection.name}' is not a search-engine connection`))
          : clients.clientFor(connection.id, connection).pipe(
            Effect.mapError(toToolFailure),
            Effect.map(makeSearchSession)
          ),
      classify: (statement: string) => Either.mapLeft(classifySearchConsoleText(statement), toToolFailure),
      disconnect: clients.close
    }
  })
}
