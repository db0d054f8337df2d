import type { PairRequest, SigningFields } from "../requests.js";

// A write kind that is one call on a token contract, described as data: what its request holds, the call it makes, what
// the token must have, what it answers, and how each door shows it. The core builds its intent from this description
// (core/operations/token-call-intents.ts), the HTTP door its route (http/routes/token-calls.ts), the Hardhat door its
// task (tasks/token-calls.ts), so that a new kind is one module of this folder and a line in index.ts. Data rather than
// code per door: domain/ is the floor every door stands on, and a kind module with no imports but types is light
// enough for Hardhat to read while it loads the plugin's tasks.

/** How a request field is checked, once, where the request enters the core (parse-token-call.ts). */
export type KindFieldType =
  /** Any EVM address, answered checksummed (the zero address too: a call may mean "nobody" by it). */
  | "address"
  /** An EVM address that is not the zero address (`zeroRefusal` says why, in the error naming the field). */
  | "account"
  /**
   * A role by name (a view the token defines, `MINTER_ROLE()`) or by id (32 bytes of 0x hex). The record and the answer
   * hold its id too, as `<field>Id`, and the call takes the id.
   */
  | "role";

/**
 * The refusals a kind may name beyond "the token has the function": `ownable`, a token with an owner (Ownable), else
 * NOT_SUPPORTED_BY_TOKEN saying what it has instead (roles, or neither); `role`, a token with AccessControl that defines
 * the kind's field `role` by that name (else NOT_SUPPORTED_BY_TOKEN naming it, or INVALID_ARGUMENT when its view's id is
 * not the name's hash).
 */
export type TokenCallCheck = "ownable" | "role";

export interface KindField {
  type: KindFieldType;
  /** The field's meaning: the HTTP schema's description, and the task option's unless `option` says it shorter. */
  description: string;
  /** The task option's words, where they differ from `description`. */
  option?: string;
  /** With type "account": completes "<field> must not be the zero address (…)". */
  zeroRefusal?: string;
  /** The value the documented example body gives it. */
  example: string;
}

export interface TokenCallKind {
  /** The operation kind: the records' `kind`, the webhook events' and `GET /operations?kind=`. */
  name: string;
  /** The write in a few words, for messages: "a delegation needs an EVM chain". */
  what: string;
  /** The request's own fields, besides chain, network, contractAddress, sender and the signing ones, in call order. */
  fields: Readonly<Record<string, KindField>>;
  /** The token's function, as a human-readable ABI fragment; its arguments are `fields`, in their order. */
  call: string;
  /**
   * Refused before signing with NOT_SUPPORTED_BY_TOKEN unless the token's code has these functions (`details.option`
   * names the launch option that gives them); what the token would revert otherwise is found by the node's estimate.
   */
  requires: {
    functions: readonly string[];
    option: string;
    launchedWithout: string;
    /** A refusal richer than a missing function, by name: written once in chains/, run instead of the function probe. */
    check?: TokenCallCheck;
  };
  /** The meaning of `contractAddress` and of `sender` for this write. */
  contract: string;
  sender: string;
  http: {
    /** Under the version prefix. */
    path: string;
    operationId: string;
    summary: string;
    /**
     * What the call does and what is refused. `{NOT_SUPPORTED}` and `{RECORDED}` stand for the words every token call
     * shares (refused when the token lacks the function; recorded, signed locally or by the service, tracked).
     */
    description: string;
    /**
     * The documented example body's name and summary (the door adds a prepare's), and the launch example whose token it
     * names (`managed`, `votes`: http/examples.ts); without one, the example account's first launch.
     */
    example: { name: string; summary: string; launch?: string };
  };
  task: {
    /** `token:<verb>`. */
    name: string;
    description: string;
    /** The --contract option's words. */
    contract: string;
    /** What the task prints of the result, before the pair it was on. */
    headline(result: Readonly<Record<string, unknown>>): string;
  };
}

/** What a kind's request holds: the pair, the token, the sender, its fields as text, and who signs. */
export type KindRequest<K extends TokenCallKind> = PairRequest &
  SigningFields & { contractAddress: string; sender: string } & { [F in keyof K["fields"]]: string };

/** The names of a kind's fields of type "role": the record and the answer also hold `<name>Id`. */
type RoleFields<K extends TokenCallKind> = {
  [F in keyof K["fields"]]: K["fields"][F] extends { type: "role" } ? F : never;
}[keyof K["fields"]];

/** What a kind answers once the node accepted its transaction: the write's common fields and its own, checked. */
export type KindResult<K extends TokenCallKind> = {
  transactionHash: string;
  status: "pending";
  chain: string;
  network: string;
  contractAddress: string;
  sender: string;
  nonce: number;
  simulated: boolean;
} & { [F in keyof K["fields"]]: string } & { [F in RoleFields<K> & string as `${F}Id`]: string };
