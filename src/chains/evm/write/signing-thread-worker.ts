// The signing thread's own code (see signing-thread.ts): signs each send it is handed, one message each, and answers
// with the signed transactions. It keeps nothing: a key lives only as long as the message that carried it.
import { createRequire } from "node:module";
import { parentPort, workerData } from "node:worker_threads";

import { offerNativeCrypto, type NativeCrypto } from "../../crypto/public-keys.js";
import { signSend, type SendToSign } from "./sign-transaction.js";

const { nativeCrypto } = workerData as { nativeCrypto: string | undefined };
if (nativeCrypto !== undefined) {
  const require = createRequire(import.meta.url);
  offerNativeCrypto(() => require(nativeCrypto) as NativeCrypto, nativeCrypto);
}

parentPort!.on("message", ({ id, send }: { id: number; send: SendToSign }) => {
  try {
    parentPort!.postMessage({ id, signed: signSend(send) });
  } catch (error) {
    parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
parentPort!.postMessage({ ready: true });
