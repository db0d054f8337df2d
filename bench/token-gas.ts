// The gas each token option costs at deployment: every option launched alone through the service on a simulated chain,
// beside the bare variant of its kind, the historic contracts and every option at once; the gas used is read from the
// receipt, the runtime size from the node. Then the gas of batch mints (the tokens' airdrop) of 1, 10 and 50 recipients,
// which sets the bound on a batch (docs/decisions/0039-batch-mint.md). Gas does not depend on the machine: the tables go
// into docs/tokens.md.
import { Wallet, dataSlice, getAddress, id } from "ethers";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { createTokenService } from "../src/api.js";
import { MAX_MINT_RECIPIENTS } from "../src/domain/mint-commands.js";
import { FEATURES, type TokenKind } from "../src/domain/token-options.js";
import { PAIR, PAIR_INFO } from "./deployments.js";

interface GasRow {
  kind: TokenKind;
  options: string;
  gas: bigint;
  runtimeBytes: number;
}

const ROYALTY = { receiver: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", basisPoints: 250 };

// Calldata costs 4 gas a zero byte and 16 any other, and the owner's address is a constructor argument: a random owner
// would move a launch's gas by 12 per zero byte of its address. One fixed key makes every run give the same tables.
const OWNER = new Wallet(id("hardhat-token-service: the owner of the gas tables' tokens"));

/** A fresh holder for each place of each batch, the same in every run (addresses cut from hashes: no key needed). */
const holder = (label: string) => getAddress(dataSlice(id(label), 12));

/** Each kind's token fields, the same in every row; `capped` adds the cap it needs. */
function tokenFields(kind: TokenKind, options: Record<string, unknown> | undefined): Record<string, unknown> {
  const withOptions = options === undefined ? {} : { options };
  if (kind === "ERC20") {
    return {
      name: "Bench Gold",
      symbol: "BGLD",
      initialSupply: "1000000",
      ...(options?.capped ? { totalSupply: "10000000" } : {}),
      ...withOptions,
    };
  }
  if (kind === "ERC721") return { name: "Bench Art", symbol: "BART", uri: "https://example.com/art/", ...withOptions };
  return { name: "Bench Items", uri: "https://example.com/items/{id}.json", ...withOptions };
}

function optionValue(feature: string): unknown {
  return feature === "royalty" ? ROYALTY : true;
}

export async function tokenGasRows(hre: HardhatRuntimeEnvironment, log: (line: string) => void): Promise<GasRow[]> {
  const service = await createTokenService({ hre, env: {} });
  try {
    await service.faucet({ ...PAIR, address: OWNER.address, amount: (10n ** 21n).toString() });
    const chain = await service.evmChain(PAIR_INFO, "bench");
    const rows: GasRow[] = [];
    const measure = async (kind: TokenKind, label: string, options: Record<string, unknown> | undefined, salt?: string) => {
      const launched = await service.launch({
        ...PAIR,
        type: kind,
        token: tokenFields(kind, options),
        ...(salt !== undefined ? { salt } : {}),
        sender: OWNER.address,
        privateKey: OWNER.privateKey,
      });
      const receipt = await chain.provider.waitForTransaction(launched.transactionHash);
      if (receipt?.status !== 1) throw new Error(`${kind} ${label}: the launch was not mined`);
      const code = await chain.provider.getCode(launched.contractAddress);
      rows.push({ kind, options: label, gas: receipt.gasUsed, runtimeBytes: (code.length - 2) / 2 });
      log(`token gas: ${kind} ${label} ${receipt.gasUsed}`);
    };
    for (const kind of ["ERC20", "ERC721", "ERC1155"] as const) {
      if (kind !== "ERC1155") await measure(kind, "no `options` (historic contract)", undefined);
      await measure(kind, "`{}` (none; access roles)", {});
      await measure(kind, "access: ownable", { access: "ownable" });
      for (const feature of FEATURES[kind]) await measure(kind, feature, { [feature]: optionValue(feature) });
      const all = Object.fromEntries(FEATURES[kind].map((feature) => [feature, optionValue(feature)]));
      await measure(kind, "all of them", all);
    }
    await measure("ERC20", "`{}` through CREATE2 (`salt`)", {}, id("bench"));
    return rows;
  } finally {
    await service.close();
  }
}

/** A markdown table: gas per launch, and what each option adds to the bare variant of its kind. */
export function formatTokenGasTable(rows: GasRow[]): string {
  const bare = new Map(rows.filter((row) => row.options.startsWith("`{}` (none")).map((row) => [row.kind, row.gas]));
  const lines = ["| kind | options | deployment gas | vs `{}` | runtime bytes |", "| --- | --- | ---: | ---: | ---: |"];
  for (const row of rows) {
    const base = bare.get(row.kind)!;
    const delta = row.gas - base;
    const sign = delta > 0n ? "+" : delta < 0n ? "−" : "±";
    const magnitude = delta < 0n ? -delta : delta;
    lines.push(
      `| ${row.kind} | ${row.options} | ${row.gas.toLocaleString("en-US")} | ${sign}${magnitude.toLocaleString("en-US")} | ${row.runtimeBytes.toLocaleString("en-US")} |`,
    );
  }
  return lines.join("\n");
}

/**
 * The README's short form: what each option adds to its kind's bare variant, one row an option, one column a kind
 * ("—": the kind has no such option); the first row the bare variant's own gas, the last every option at once.
 */
export function formatOptionCostTable(rows: GasRow[]): string {
  const kinds = ["ERC20", "ERC721", "ERC1155"] as const;
  const gasOf = (kind: TokenKind, options: string) => rows.find((row) => row.kind === kind && row.options === options)?.gas;
  const bare = (kind: TokenKind) => gasOf(kind, "`{}` (none; access roles)")!;
  const signed = (delta: bigint) => `${delta < 0n ? "−" : "+"}${(delta < 0n ? -delta : delta).toLocaleString("en-US")}`;
  const options = ["access: ownable", ...new Set(kinds.flatMap((kind) => FEATURES[kind] as readonly string[]))];
  const lines = ["| option | ERC20 | ERC721 | ERC1155 |", "| --- | ---: | ---: | ---: |"];
  lines.push(`| none (\`{}\`: access roles) | ${kinds.map((kind) => bare(kind).toLocaleString("en-US")).join(" | ")} |`);
  for (const option of options) {
    const cells = kinds.map((kind) => {
      const gas = gasOf(kind, option);
      return gas === undefined ? "—" : signed(gas - bare(kind));
    });
    lines.push(`| ${option} | ${cells.join(" | ")} |`);
  }
  lines.push(`| all of them | ${kinds.map((kind) => gasOf(kind, "all of them")!.toLocaleString("en-US")).join(" | ")} |`);
  return lines.join("\n");
}

interface BatchGasRow {
  token: string;
  /** Gas used by the batch's transaction, by number of recipients. */
  gas: Map<number, bigint>;
}

/** The batch sizes measured: one recipient, ten, and the bound. */
const BATCH_SIZES = [1, 10, MAX_MINT_RECIPIENTS];

/** Batch mints to fresh holders (new storage slots: the dearest case), each kind at its heaviest and at its lightest. */
export async function batchMintGasRows(hre: HardhatRuntimeEnvironment, log: (line: string) => void): Promise<BatchGasRow[]> {
  const service = await createTokenService({ hre, env: {} });
  try {
    await service.faucet({ ...PAIR, address: OWNER.address, amount: (10n ** 21n).toString() });
    const chain = await service.evmChain(PAIR_INFO, "bench");
    const signer = { sender: OWNER.address, privateKey: OWNER.privateKey };
    const launch = async (kind: TokenKind, options: Record<string, unknown>) => {
      const launched = await service.launch({ ...PAIR, type: kind, token: tokenFields(kind, options), ...signer });
      await chain.provider.waitForTransaction(launched.transactionHash);
      return launched.contractAddress;
    };
    const everyErc721Option = Object.fromEntries(FEATURES.ERC721.map((feature) => [feature, optionValue(feature)]));
    const cases: Array<{ token: string; kind: TokenKind; options: Record<string, unknown>; item(index: number): Record<string, unknown> }> =
      [
        {
          token: "ERC721, every option, a 59-byte URI each",
          kind: "ERC721",
          options: everyErc721Option,
          item: (index) => ({ uri: `bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55f/${index}.json`.slice(0, 59) }),
        },
        { token: "ERC721, every option, no URI", kind: "ERC721", options: everyErc721Option, item: () => ({}) },
        { token: "ERC721, no option", kind: "ERC721", options: {}, item: () => ({}) },
        {
          token: "ERC20 mintable, votes, capped, pausable",
          kind: "ERC20",
          options: { mintable: true, votes: true, capped: true, pausable: true },
          item: () => ({ amount: "1000" }),
        },
        { token: "ERC20 mintable", kind: "ERC20", options: { mintable: true }, item: () => ({ amount: "1000" }) },
        {
          token: "ERC1155 supply, pausable",
          kind: "ERC1155",
          options: { supply: true, pausable: true },
          item: (index) => ({ tokenId: String(index), amount: "5" }),
        },
      ];
    const rows: BatchGasRow[] = [];
    for (const { token, kind, options, item } of cases) {
      const contractAddress = await launch(kind, options);
      const gas = new Map<number, bigint>();
      for (const size of BATCH_SIZES) {
        const recipients = Array.from({ length: size }, (_, index) => ({ to: holder(`${token}: ${size}: ${index}`), ...item(index) }));
        const minted = await service.mint({ ...PAIR, type: kind, contractAddress, recipients, ...signer } as never);
        const receipt = await chain.provider.waitForTransaction(minted.transactionHash);
        if (receipt?.status !== 1) throw new Error(`${token}: the batch of ${size} was not mined`);
        gas.set(size, receipt.gasUsed);
        log(`batch mint gas: ${token}, ${size} recipients: ${receipt.gasUsed}`);
      }
      rows.push({ token, gas });
    }
    return rows;
  } finally {
    await service.close();
  }
}

/** A markdown table: the gas of each batch size, and what each recipient past ten adds. */
export function formatBatchMintGasTable(rows: BatchGasRow[]): string {
  const [, middle, last] = BATCH_SIZES as [number, number, number];
  const header = `| token (access roles) | ${BATCH_SIZES.map((size) => `${size} recipient${size > 1 ? "s" : ""}`).join(" | ")} | per added recipient |`;
  const lines = [header, `| --- | ${BATCH_SIZES.map(() => "---:").join(" | ")} | ---: |`];
  for (const row of rows) {
    const perRecipient = (row.gas.get(last)! - row.gas.get(middle)!) / BigInt(last - middle);
    const cells = BATCH_SIZES.map((size) => row.gas.get(size)!.toLocaleString("en-US"));
    lines.push(`| ${row.token} | ${cells.join(" | ")} | ${perRecipient.toLocaleString("en-US")} |`);
  }
  return lines.join("\n");
}
