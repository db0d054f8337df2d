import type { TokenCallKind } from "./token-call-kind.js";

// Ownable's transferOwnership: a token launched with access "ownable" handed to a new owner, who alone may then mint,
// pause and hand it over again. A token with roles (AccessControl) has no owner: the check `ownable` says so, naming
// what to do instead (grant DEFAULT_ADMIN_ROLE).

export const transferOwnershipKind = {
  name: "transferOwnership",
  what: "ownership transfer",
  fields: {
    newOwner: {
      type: "account",
      description: "The owner from then on",
      zeroRefusal: "it would leave the token without an owner; the token refuses it",
      option: "The new owner",
      example: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    },
  },
  call: "function transferOwnership(address newOwner)",
  requires: {
    functions: ["transferOwnership(address)"],
    option: "access",
    launchedWithout: "the token has no owner (it was launched with token.options.access roles)",
    check: "ownable",
  },
  contract: "The token; launched with access ownable (Ownable)",
  sender: "The owner",
  http: {
    path: "/tokens/ownership/transfer",
    operationId: "transferOwnership",
    summary: "Hand a token launched with access ownable to a new owner",
    description:
      "Calls Ownable's `transferOwnership(newOwner)`: the new owner alone may then mint, pause and transfer ownership again. {NOT_SUPPORTED} (`access`: `details.needed` `ownable`; a token with roles hands over by granting `DEFAULT_ADMIN_ROLE`; an AccessManaged one, `details.found` `managed`, has no owner: its AccessManager, `details.authority`, decides). A sender that is not the owner is refused with `WOULD_REVERT` (`OwnableUnauthorizedAccount`). {RECORDED}",
    example: {
      name: "recipient",
      summary: "The token the launch example “managed” deploys, to Hardhat's second account",
      launch: "managed",
    },
  },
  task: {
    name: "token:transfer-ownership",
    description: "Hand a token launched with access ownable to a new owner",
    contract: "The token contract address (launched with access ownable)",
    headline: (result) => `Handed ${String(result.contractAddress)} from ${String(result.sender)} to ${String(result.newOwner)}`,
  },
} as const satisfies TokenCallKind;
