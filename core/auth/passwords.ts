import { hash, verify } from "@node-rs/argon2";

// The library's defaults are argon2id at OWASP's 19 MiB, 2 passes, 1 lane (a test checks the id).
export const hashPassword = (password: string): Promise<string> => hash(password);

// Verified against when the e-mail is unknown, so a login takes as long either way.
let decoy: Promise<string> | undefined;

export async function verifyPassword(passwordHash: string | null, password: string) {
  if (passwordHash === null) {
    decoy ??= hashPassword("decoy password for unknown accounts");
    await verify(await decoy, password);
    return false;
  }
  return verify(passwordHash, password);
}
