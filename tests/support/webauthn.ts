import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";

// A software authenticator for the API tests: what a browser and a platform passkey would answer
// to the server's options, made by hand (ES256 on P-256, "none" attestation), so a test can also
// answer wrongly on purpose (another origin, challenge, RP id, account or key).

/** The subset of CBOR a WebAuthn authenticator writes: maps, byte and text strings, integers. */
export type CborValue = number | string | Uint8Array | CborMap;
export type CborMap = Map<number | string, CborValue>;

/** A CBOR item's head: major type and argument, in the shortest form (as authenticators write). */
function cborHead(major: number, argument: number): Buffer {
  if (!Number.isSafeInteger(argument) || argument < 0 || argument > 0xffff_ffff) {
    throw new Error(`CBOR argument out of range: ${String(argument)}`);
  }
  const type = major << 5;
  if (argument < 24) return Buffer.from([type | argument]);
  if (argument < 0x100) return Buffer.from([type | 24, argument]);
  if (argument < 0x1_0000) {
    const head = Buffer.alloc(3);
    head[0] = type | 25;
    head.writeUInt16BE(argument, 1);
    return head;
  }
  const head = Buffer.alloc(5);
  head[0] = type | 26;
  head.writeUInt32BE(argument, 1);
  return head;
}

/** Encodes a value; map entries keep their insertion order. */
export function encodeCbor(value: CborValue): Buffer {
  if (typeof value === "number") {
    if (!Number.isInteger(value)) throw new Error("CBOR: only integers are supported");
    return value >= 0 ? cborHead(0, value) : cborHead(1, -1 - value);
  }
  if (typeof value === "string") {
    const bytes = Buffer.from(value, "utf8");
    return Buffer.concat([cborHead(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) {
    return Buffer.concat([cborHead(2, value.length), value]);
  }
  const parts: Buffer[] = [cborHead(5, value.size)];
  for (const [key, item] of value) parts.push(encodeCbor(key), encodeCbor(item));
  return Buffer.concat(parts);
}

const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest();
const b64url = (data: Uint8Array) => Buffer.from(data).toString("base64url");

const uint32 = (value: number) => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
};

/** Authenticator data flags (WebAuthn 6.1). */
export const FLAGS = { UP: 0x01, UV: 0x04, AT: 0x40 } as const;

/** A passkey this authenticator holds: its id, its key pair and the account it was made for. */
export interface SoftCredential {
  /** The credential id, base64url. */
  id: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  rpId: string;
  /** The account's user handle as the options gave it (base64url). */
  userHandle: string;
  /** The signature counter; each assertion moves it on by one first. */
  signCount: number;
}

/** A new ES256 credential (P-256 key pair and a random 32-byte id). */
export function newCredential(rpId: string, userHandle: string): SoftCredential {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return { id: b64url(randomBytes(32)), privateKey, publicKey, rpId, userHandle, signCount: 0 };
}

/** The credential's public key as a COSE EC2 key: {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y}. */
export function coseKey(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: "jwk" });
  if (!jwk.x || !jwk.y) throw new Error("not an EC public key");
  const key: CborMap = new Map<number, CborValue>([
    [1, 2],
    [3, -7],
    [-1, 1],
    [-2, Buffer.from(jwk.x, "base64url")],
    [-3, Buffer.from(jwk.y, "base64url")],
  ]);
  return encodeCbor(key);
}

const clientData = (fields: Record<string, unknown>) =>
  Buffer.from(JSON.stringify(fields), "utf8").toString("base64url");

export interface RegisterOverrides {
  /** The challenge to sign instead of the options' one. */
  challenge?: string;
  /** The relying party whose hash goes in authData instead of the options' one. */
  rpId?: string;
  /** clientDataJSON's type instead of "webauthn.create". */
  type?: string;
  /** Answer with this credential (its id and key) instead of making a new one. */
  credential?: SoftCredential;
  /** Authenticator data flags instead of UP|UV|AT. */
  flags?: number;
}

export interface Registered {
  /** What the browser sends back (`startRegistration()`'s result). */
  response: RegistrationResponseJSON;
  /** The credential made, for `authenticate` later. */
  credential: SoftCredential;
}

/** `navigator.credentials.create()` for these options, answered from `origin`. */
export function register(
  options: PublicKeyCredentialCreationOptionsJSON,
  origin: string,
  overrides: RegisterOverrides = {},
): Registered {
  const rpId = options.rp.id ?? new URL(origin).hostname;
  const credential = overrides.credential ?? newCredential(rpId, options.user.id);
  const credentialId = Buffer.from(credential.id, "base64url");
  const idLength = Buffer.alloc(2);
  idLength.writeUInt16BE(credentialId.length);
  const authData = Buffer.concat([
    sha256(overrides.rpId ?? rpId),
    Buffer.from([overrides.flags ?? FLAGS.UP | FLAGS.UV | FLAGS.AT]),
    uint32(0),
    Buffer.alloc(16), // AAGUID: none
    idLength,
    credentialId,
    coseKey(credential.publicKey),
  ]);
  const attestationObject = encodeCbor(
    new Map<string, CborValue>([
      ["fmt", "none"],
      ["attStmt", new Map()],
      ["authData", authData],
    ]),
  );
  return {
    credential,
    response: {
      id: credential.id,
      rawId: credential.id,
      type: "public-key",
      response: {
        clientDataJSON: clientData({
          type: overrides.type ?? "webauthn.create",
          challenge: overrides.challenge ?? options.challenge,
          origin,
          crossOrigin: false,
        }),
        attestationObject: b64url(attestationObject),
        transports: ["internal"],
      },
      clientExtensionResults: {},
    },
  };
}

export interface AuthenticateOverrides {
  challenge?: string;
  rpId?: string;
  /** clientDataJSON's type instead of "webauthn.get". */
  type?: string;
  /** The user handle to send (base64url); null sends none, as a non-discoverable passkey does. */
  userHandle?: string | null;
  /** Signs with this key instead of the credential's (a signature the server must refuse). */
  signingKey?: KeyObject;
  /** The signature counter to send; the credential's own moves on by one otherwise. */
  counter?: number;
  /** Authenticator data flags instead of UP|UV. */
  flags?: number;
}

/** `navigator.credentials.get()` for these options with `credential`, answered from `origin`. */
export function authenticate(
  options: PublicKeyCredentialRequestOptionsJSON,
  origin: string,
  credential: SoftCredential,
  overrides: AuthenticateOverrides = {},
): AuthenticationResponseJSON {
  let counter = overrides.counter;
  if (counter === undefined) {
    credential.signCount += 1;
    counter = credential.signCount;
  }
  const authenticatorData = Buffer.concat([
    sha256(overrides.rpId ?? options.rpId ?? credential.rpId),
    Buffer.from([overrides.flags ?? FLAGS.UP | FLAGS.UV]),
    uint32(counter),
  ]);
  const clientDataJSON = clientData({
    type: overrides.type ?? "webauthn.get",
    challenge: overrides.challenge ?? options.challenge,
    origin,
    crossOrigin: false,
  });
  const signed = Buffer.concat([
    authenticatorData,
    sha256(Buffer.from(clientDataJSON, "base64url")),
  ]);
  // ECDSA over SHA-256, DER-encoded: the form WebAuthn signatures take.
  const signature = sign("sha256", signed, overrides.signingKey ?? credential.privateKey);
  const userHandle =
    overrides.userHandle === undefined ? credential.userHandle : overrides.userHandle;
  return {
    id: credential.id,
    rawId: credential.id,
    type: "public-key",
    response: {
      clientDataJSON,
      authenticatorData: b64url(authenticatorData),
      signature: b64url(signature),
      ...(userHandle === null ? {} : { userHandle }),
    },
    clientExtensionResults: {},
  };
}

/** Another key pair's private half, for signatures that do not match the registered key. */
export const strangerKey = () => generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey;
