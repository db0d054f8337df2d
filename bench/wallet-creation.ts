// Wallet creation in one thread, so each rate is per core: the core's key generation beside ethers' Wallet.createRandom().
import { Wallet as EthersWallet } from "ethers";

import { createWallet } from "../src/core/wallets.js";
import { perSecond } from "./support.js";

/** Calls `work` repeatedly for about `ms` milliseconds; returns calls per second. */
function ratePerSecond(work: () => unknown, ms: number): number {
  for (let i = 0; i < 50; i++) work(); // warm-up: JIT, lazy tables
  let calls = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (let i = 0; i < 20; i++) work();
    calls += 20;
    elapsed = performance.now() - start;
  }
  return (calls / elapsed) * 1000;
}

export function walletCreationTable(): string {
  const ethereum = ratePerSecond(() => createWallet({ chain: "ethereum", network: "mainnet" }), 1500);
  const bitcoin = ratePerSecond(() => createWallet({ chain: "bitcoin", network: "mainnet" }), 1500);
  const taproot = ratePerSecond(() => createWallet({ chain: "bitcoin", network: "mainnet", addressType: "p2tr" }), 1500);
  const ethersMnemonic = ratePerSecond(() => EthersWallet.createRandom(), 1500);
  return [
    "| measure | value | note |",
    "|---|---|---|",
    `| wallet:create ethereum (per core) | ${perSecond(ethereum)} | CSPRNG key, no mnemonic |`,
    `| wallet:create bitcoin p2wpkh (per core) | ${perSecond(bitcoin)} | |`,
    `| wallet:create bitcoin p2tr (per core) | ${perSecond(taproot)} | |`,
    `| ethers Wallet.createRandom() (per core) | ${perSecond(ethersMnemonic)} | mnemonic + HD derivation; ours is ${(ethereum / ethersMnemonic).toFixed(0)}x faster |`,
  ].join("\n");
}
