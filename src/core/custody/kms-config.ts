import { EnvironmentError, readVariable } from "../../config/environment.js";
import type { KmsKeys } from "./types.js";

/**
 * TOKEN_SERVICE_SIGNER=aws-kms: the KMS client, loaded on first use (the AWS SDK is not loaded by a service that does
 * not use it). Credentials from the given environment's AWS_* variables, else the SDK's default chain.
 */
export function kmsOf(env: NodeJS.ProcessEnv): { kms?: () => Promise<KmsKeys> } {
  if (readVariable(env, "TOKEN_SERVICE_SIGNER") !== "aws-kms") return {};
  const region = readVariable(env, "TOKEN_SERVICE_AWS_KMS_REGION");
  if (region === undefined) {
    throw new EnvironmentError(
      "TOKEN_SERVICE_AWS_KMS_REGION is required with TOKEN_SERVICE_SIGNER=aws-kms",
      "TOKEN_SERVICE_AWS_KMS_REGION",
    );
  }
  const endpoint = readVariable(env, "TOKEN_SERVICE_AWS_KMS_ENDPOINT");
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, AWS_SESSION_TOKEN: sessionToken } = env;
  const credentials =
    accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } : undefined;
  // Custody loads it once.
  return {
    kms: () =>
      import("../../chains/signers/aws-kms-signer.js").then(({ awsKmsKeys }) =>
        awsKmsKeys({ region, ...(endpoint !== undefined ? { endpoint } : {}), ...(credentials !== undefined ? { credentials } : {}) }),
      ),
  };
}
