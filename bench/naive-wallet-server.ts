// The naive wallet handler as an application runs it: a Node process of its own with Express 5 and plain ethers, so
// none of the native code that a Hardhat runtime puts into ethers (hardhat-ethers' secp256k1 and keccak) is in it.
// Prints its URL, then serves until killed.
import type { AddressInfo } from "node:net";

import { Wallet } from "ethers";
import express from "express";

const route = process.argv[2] ?? "/api/v1/wallets";
const app = express();
app.use(express.json());
app.post(route, (_request, response) => {
  const wallet = Wallet.createRandom();
  response.json({ chain: "ethereum", network: "mainnet", address: wallet.address, privateKey: wallet.privateKey });
});
const server = app.listen(0, "127.0.0.1", () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}${route}\n`);
});
