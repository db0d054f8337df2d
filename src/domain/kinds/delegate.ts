import type { TokenCallKind } from "./token-call-kind.js";

// ERC20Votes' delegation: a holder's tokens count as votes only once delegated, to another account or to itself, so a
// token launched with the votes option is of no use to a governor until its holders delegate. The worked example of
// docs/design.md, "Adding a write kind".

export const delegateKind = {
  name: "delegate",
  what: "delegation",
  fields: {
    delegatee: {
      type: "address",
      description:
        "Who votes with the sender's tokens from then on: another account, or the sender itself (its own votes); the zero address takes the votes back from everyone",
      example: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    },
  },
  call: "function delegate(address delegatee)",
  requires: {
    functions: ["delegate(address)"],
    option: "votes",
    launchedWithout: "the token has no votes to delegate (it was launched without token.options.votes)",
  },
  contract: "The token; an ERC20 launched with token.options.votes (or any with ERC20Votes' delegate)",
  sender: "The holder whose votes are delegated (all of its balance, now and to come); pays the fee",
  http: {
    path: "/tokens/delegate",
    operationId: "delegateVotes",
    summary: "Delegate a holder's votes of an ERC20Votes token to an account, or to itself",
    description:
      "Calls ERC20Votes' `delegate(delegatee)`: the sender's whole balance, now and as it changes, counts as `delegatee`'s votes (`getVotes`, `getPastVotes`); a holder that never delegates has tokens but no votes. Delegating to the sender itself counts its own votes; to the zero address, nobody's. {NOT_SUPPORTED} (`votes`). {RECORDED}",
    example: { name: "account", summary: "The example account's votes, to Hardhat's second account", launch: "votes" },
  },
  task: {
    name: "token:delegate",
    description: "Delegate the sender's votes of an ERC20 launched with the votes option to an account (or to itself)",
    contract: "The token contract address (an ERC20 launched with the votes option)",
    headline: (result) =>
      `Delegated the votes of ${String(result.sender)} on ${String(result.contractAddress)} to ${String(result.delegatee)}`,
  },
} as const satisfies TokenCallKind;
