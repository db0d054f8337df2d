import { delegateKind } from "./delegate.js";
import { grantRoleKind, revokeRoleKind } from "./roles.js";
import { transferOwnershipKind } from "./transfer-ownership.js";

// Every write kind described by one module of this folder (token-call-kind.ts): the operation kinds, the write
// commands, the HTTP routes and the tasks are made from this list. A new kind is a module and its line here
// (docs/design.md, "Adding a write kind").

export const TOKEN_CALL_KINDS = [grantRoleKind, revokeRoleKind, transferOwnershipKind, delegateKind] as const;

export type TokenCallKindOf = (typeof TOKEN_CALL_KINDS)[number];
export type TokenCallKindName = TokenCallKindOf["name"];
