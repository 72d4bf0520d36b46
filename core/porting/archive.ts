import { z } from "zod";

/**
 * The layout of a site archive (decision 019), a plain tar file:
 *
 *   tables/<table>.jsonl    one JSON object a row, every column, in CARRIED_TABLES order
 *   files/<storage key>     every stored image file (images/<id>/<variant>.webp)
 *   manifest.json           last: the format, the schema version, and the size and SHA-256 of
 *                           every entry above, so a truncated or altered archive is refused
 */
export const ARCHIVE_FORMAT = "blog-platform-site";
export const ARCHIVE_VERSION = 1;
export const MANIFEST_ENTRY = "manifest.json";
export const tableEntry = (table: string) => `tables/${table}.jsonl`;
export const fileEntry = (key: string) => `files/${key}`;

/** A stored image variant, as core/media/images.ts names them: nothing else is carried. */
export const IMAGE_FILE = /^images\/[a-z0-9-]{1,64}\/(sm|md|lg)\.webp$/;

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

export const ManifestSchema = z.object({
  format: z.literal(ARCHIVE_FORMAT),
  version: z.literal(ARCHIVE_VERSION),
  /** The last migration the source had run: the target must be at the same one. */
  migration: z.string().min(1),
  exportedAt: z.string(),
  sourceEngine: z.enum(["sqlite", "postgres"]),
  tables: z.array(
    z.object({
      name: z.string(),
      columns: z.array(z.string()).min(1),
      rows: z.number().int().nonnegative(),
      bytes: z.number().int().nonnegative(),
      sha256,
    }),
  ),
  files: z.array(
    z.object({
      key: z.string(),
      bytes: z.number().int().nonnegative(),
      sha256,
    }),
  ),
});

export type Manifest = z.infer<typeof ManifestSchema>;

/** A column value as both engines store it here: text, a whole number, or null. */
export type CellValue = string | number | null;

export const isCellValue = (value: unknown): value is CellValue =>
  value === null || typeof value === "string" || Number.isSafeInteger(value);
