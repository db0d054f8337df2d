/**
 * The values /openapi.json shows as examples, so that /docs' "Try it out" sends bodies the service accepts. The account
 * is Hardhat's first default account, whose key is public (printed by every `npx hardhat node`) and which every
 * simulated chain funds: never send real funds to it, nor use its key on a live network.
 */
export const EXAMPLE_ACCOUNT = {
  address: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
  privateKey: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
} as const;

/** Hardhat's second default account: a recipient. */
export const EXAMPLE_RECIPIENT = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

/** Hardhat's third default account: another recipient. */
export const EXAMPLE_THIRD_ACCOUNT = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";

/** Where the example account's first launch on a fresh simulated chain lands (its nonce 0). */
export const EXAMPLE_TOKEN_CONTRACT = "0x5FbDB2315678afecb367f032d93F642f64180aa3";

export const EXAMPLE_TRANSACTION_HASH = "0x9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0";

/** A CREATE2 salt: ethers' id("gold-v1"), the keccak-256 of a name. */
export const EXAMPLE_SALT = "0x5ce501994fda98529c915bb2ee99729b7456a4892913cc3fa28674d1de2e328d";

export const EXAMPLE_PAIR = { chain: "ethereum", network: "sepolia" } as const;

/** 1 token at 18 decimals, in smallest units. */
export const ONE_TOKEN = "1000000000000000000";

/** A named example body of an operation (OpenAPI's media type `examples`); the first is what "Try it out" sends. */
export interface BodyExample {
  summary: string;
  description?: string;
  value: Record<string, unknown>;
}

/** Where the example account's second launch on a fresh simulated chain lands (its nonce 1): an ERC721 in the examples. */
export const EXAMPLE_NFT_CONTRACT = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512";

/**
 * Where the example account's launches with nonces 3 and 4 land, the launch examples `erc1155` and `erc20WithOptions`
 * tried after the first mint: the ERC1155 and batch mint examples name them.
 */
export const EXAMPLE_COLLECTION_CONTRACT = "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9";
export const EXAMPLE_MINTABLE_CONTRACT = "0xDc64a140Aa3E981100a9becA4E685f962f0cF6C9";

/**
 * The launch example "managed" deploys, with a salt, at this address on every chain: an ERC20 with burnable, pausable and
 * one owner (the example account), which the burn, pause and ownership examples name.
 */
export const EXAMPLE_MANAGED_SALT = "0xe246480add4ff354adab60a94dc85e355e8ce62ad1ad0afa45b95a14b60f9a28";
export const EXAMPLE_MANAGED_CONTRACT = "0x6bE593eae15F9c551d0EA66604fAD7284148134E";

/** The launch example "votes" deploys, with a salt, at this address on every chain: an ERC20 with ERC20Votes. */
export const EXAMPLE_VOTES_SALT = "0x7ef291445d804e60a563b8bb0632a8208bd2c3f4a6c24796c1e50e9418cbc507";
export const EXAMPLE_VOTES_CONTRACT = "0xE15665B3e2Ad3ebDDdaC482d421f024f3762868d";

/**
 * The tokens the launch examples with a salt deploy, by the example's name: a write kind's examples name one of them
 * (http/routes/token-calls.ts, the kind's `http.example.launch`), so that they work as written.
 */
export const EXAMPLE_LAUNCHED_CONTRACTS: Readonly<Record<string, string>> = {
  managed: EXAMPLE_MANAGED_CONTRACT,
  votes: EXAMPLE_VOTES_CONTRACT,
};
