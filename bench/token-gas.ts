// The gas each token option costs at deployment: every option launched alone through the service on a simulated chain,
// beside the bare variant of its kind, the historic contracts and every option at once; the gas used is read from the
// receipt, the runtime size from the node. Gas does not depend on the machine: the table goes into docs/tokens.md.
import { id } from "ethers";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { createTokenService } from "../src/api.js";
import { FEATURES, type TokenKind } from "../src/domain/token-options.js";
import { PAIR, PAIR_INFO } from "./deployments.js";

interface GasRow {
  kind: TokenKind;
  options: string;
  gas: bigint;
  runtimeBytes: number;
}

const ROYALTY = { receiver: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", basisPoints: 250 };

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
    const owner = service.createWallet(PAIR);
    await service.faucet({ ...PAIR, address: owner.address, amount: (10n ** 21n).toString() });
    const chain = await service.evmChain(PAIR_INFO, "bench");
    const rows: GasRow[] = [];
    const measure = async (kind: TokenKind, label: string, options: Record<string, unknown> | undefined, salt?: string) => {
      const launched = await service.launch({
        ...PAIR,
        type: kind,
        token: tokenFields(kind, options),
        ...(salt !== undefined ? { salt } : {}),
        sender: owner.address,
        privateKey: owner.privateKey,
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
