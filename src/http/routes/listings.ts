import { isAddress, getAddress } from "ethers";

import { invalidArgument } from "../../domain/errors.js";
import { OPERATION_KINDS, OPERATION_STATUSES } from "../../domain/lifecycle.js";
import type { ChainRegistry } from "../../domain/chains.js";
import type { OperationFilter } from "../../store/types.js";
import { isDataException } from "../database-errors.js";
import { presentOperation } from "../../domain/present-operation.js";
import { defineRoute } from "../route.js";
import { OperationList, OperationListQuery, TokenListQuery } from "../operation-schemas.js";
import type { ServerContext } from "../context.js";
import { errorResponses } from "./common.js";

// The API key's records, newest first in cursor pages: every write (GET /operations) and its launches (GET /tokens),
// narrowed by kind, status, sender, chain and network. Each filter is parsed here, once, and named when it is wrong.

/** Comma-separated and/or repeated values, each one of `allowed`. */
function listValues(raw: string | string[] | undefined, field: string, allowed: readonly string[]): string[] | undefined {
  if (raw === undefined) return undefined;
  const values = (Array.isArray(raw) ? raw : [raw]).flatMap((value) => value.split(",")).map((value) => value.trim().toLowerCase());
  for (const value of values) {
    if (!allowed.includes(value))
      throw invalidArgument(field, `${field} must be among ${allowed.join(", ")}; "${value.slice(0, 40)}" is not`);
  }
  return [...new Set(values)];
}

function listFilter(
  query: { status?: string | string[]; sender?: string; chain?: string; network?: string },
  chains: ChainRegistry,
): OperationFilter {
  const filter: OperationFilter = {};
  const statuses = listValues(query.status, "status", OPERATION_STATUSES);
  if (statuses !== undefined) filter.statuses = statuses;
  if (query.sender !== undefined) {
    if (query.sender.trim() === "" || query.sender.length > 100) throw invalidArgument("sender", "sender must be an address");
    // EVM senders are recorded checksummed; a Bitcoin one as written.
    filter.sender = isAddress(query.sender) ? getAddress(query.sender.toLowerCase()) : query.sender;
  }
  if (query.network !== undefined && query.chain === undefined)
    throw invalidArgument("network", "network filters within a chain: give chain too");
  if (query.chain !== undefined) {
    const known = chains.all().filter((info) => info.chain === query.chain);
    if (known.length === 0)
      throw invalidArgument("chain", `chain must be one of ${[...new Set(chains.all().map((info) => info.chain))].join(", ")}`);
    filter.chain = query.chain;
    if (query.network !== undefined) {
      if (!known.some((info) => info.network === query.network)) {
        throw invalidArgument("network", `network must be one of ${known.map((info) => info.network).join(", ")} on ${query.chain}`);
      }
      filter.network = query.network;
    }
  }
  return filter;
}

async function page(context: ServerContext, apiKeyId: string | null, query: { limit?: number; cursor?: string }, filter: OperationFilter) {
  const found = await context.store
    .listOperations(apiKeyId, { limit: query.limit ?? 20, ...(query.cursor ? { cursor: query.cursor } : {}), filter })
    .catch((error: unknown) => {
      // The cursor is the only client value the query compares with unchecked: one the database cannot take (an id
      // holding NUL, a time beyond bigint) was not made by this service.
      if (query.cursor && isDataException(error)) throw invalidArgument("cursor", "cursor is not one this service returned");
      throw error;
    });
  return { body: { items: found.items.map(presentOperation), nextCursor: found.nextCursor } };
}

export const listOperationsRoute = defineRoute({
  method: "get",
  paths: ["/operations"],
  operationId: "listOperations",
  tag: "operations",
  summary:
    "The writes made with your API key, newest first: launches, mints, transfers, approvals, burns, pauses, role and ownership changes, faucet grants, Bitcoin sends",
  description:
    "Pass `nextCursor` as `cursor` for the next page. `kind`, `status`, `sender`, `chain` and `network` narrow the list; `kind` and `status` take several values, comma-separated or repeated.",
  auth: true,
  query: OperationListQuery,
  responses: { 200: { description: "A page of records", schema: OperationList }, ...errorResponses(400, 401, 429) },
  async handle({ query, apiKeyId }, context) {
    const filter = listFilter(query, context.service.chains);
    const kinds = listValues(query.kind, "kind", OPERATION_KINDS);
    return page(context, apiKeyId, query, kinds === undefined ? filter : { ...filter, kinds });
  },
});

export const listTokensRoute = defineRoute({
  method: "get",
  paths: ["/tokens"],
  operationId: "listTokens",
  tag: "tokens",
  summary: "The tokens launched with your API key, newest first: their launch records",
  description:
    "Each item is a launch's record (`contractAddress`, `type`, the token's fields in `params`, its `status`). Pass `nextCursor` as `cursor` for the next page; `status`, `sender`, `chain` and `network` narrow the list. Every kind of write is listed by `GET /api/v1/operations`.",
  auth: true,
  query: TokenListQuery,
  responses: { 200: { description: "A page of launch records", schema: OperationList }, ...errorResponses(400, 401, 429) },
  async handle({ query, apiKeyId }, context) {
    return page(context, apiKeyId, query, { ...listFilter(query, context.service.chains), kinds: ["launch"] });
  },
});
