/**
 * A blog from another platform, as the Ghost and WordPress readers hand it to the writer: the same
 * shape whatever the source, checked whole before anything is written.
 */
export interface ForeignAuthor {
  /** The source's own id or login, as its posts name it. */
  ref: string;
  name: string;
  /** May be missing or unusable: the writer gives such an author an address of its own. */
  email: string;
  bio: string;
}

/** A comment as its source shows it: by a name (any address typed with it proves nothing). */
export interface ForeignComment {
  authorName: string;
  text: string;
  createdAt: string;
}

export interface ForeignPost {
  /** How the report names it: the source's slug or id. */
  ref: string;
  title: string;
  markdown: string;
  status: "published" | "draft";
  /**
   * Why the source did not show it to everyone (password-protected, private, members only,
   * scheduled...), whatever its status there; null for a public post or a plain draft.
   */
  hiddenBecause: string | null;
  publishedAt: string | null;
  createdAt: string;
  updatedAt: string;
  category: string | null;
  /** Its tags as the source names them, in its order (the writer makes them fit, or reports). */
  tags: string[];
  authorRef: string;
  /** The feature image's URL in the source, if it has one. */
  featureImage: string | null;
  /** Its description for readers who cannot see it, where the source keeps one. */
  featureImageAlt: string | null;
  comments: ForeignComment[];
  /** What the reader changed or left out of this post, each in words (the report lists them). */
  notes: string[];
}

/**
 * A static page of the source (decision 032): the writer gives it a slug here, renders its body as
 * a page's and stores the blog's own images in it as a post's.
 */
export interface ForeignPage {
  /** How the report names it: the source's slug or id. */
  ref: string;
  /** The source's slug ("" when it has none): kept when it is one here. */
  slug: string;
  title: string;
  markdown: string;
  status: "published" | "draft";
  /** As a post's: why the source did not show it to everyone, or null. */
  hiddenBecause: string | null;
  publishedAt: string | null;
  createdAt: string;
  updatedAt: string;
  authorRef: string;
  /** What search results and share cards show of it, where the source keeps one. */
  metaDescription: string | null;
  /** What the reader changed or left out of this page, each in words. */
  notes: string[];
}

/** A link of the source's navigation, as it has it (the writer makes it fit, or reports it). */
export interface ForeignLink {
  label: string;
  url: string;
}

export interface ForeignBlog {
  source: "Ghost" | "WordPress";
  authors: ForeignAuthor[];
  posts: ForeignPost[];
  pages: ForeignPage[];
  /**
   * The site's navigation where the source keeps one (Ghost's primary and secondary navigation):
   * a place the export does not have is undefined.
   */
  navigation?: { header?: ForeignLink[]; footer?: ForeignLink[] };
  /** What the reader left out already (trashed posts, other kinds...), each with why. */
  skipped: { item: string; reason: string }[];
  /**
   * Where the images folder keeps a file the source names by an address outside its uploads
   * path (a WordPress.com blog's `files.wordpress.com`): the address, and the path in the folder.
   */
  imagePaths?: ReadonlyMap<string, string>;
  /** The old site's address, where its links to its own posts start (WordPress's channel link). */
  siteUrl?: string;
}

/** The source's time as this site stores times (ISO-8601 UTC), or undefined when it is not one. */
export function isoTime(value: unknown): string | undefined {
  if (typeof value !== "string" && typeof value !== "number") return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** A reader's refusal: the file cannot be read as its format; nothing was written. */
export class SourceRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SourceRefused";
  }
}

/**
 * The most characters of post and comment HTML (or documents) one import converts: conversion is
 * linear, but a file is not bounded, so neither would its time be. Past it, each further post is a
 * line of the report: import the rest from a second, smaller export.
 */
export const IMPORT_SOURCE_MAX = 32 * 1024 * 1024;

/** A reader's limits; tests lower them. */
export interface ReadLimits {
  /** `IMPORT_SOURCE_MAX` unless given. */
  sourceMax?: number;
}

/** Why a post past the import's budget was left out. */
export const budgetSpent = (max: number) =>
  `this import already converted ${String(Math.round(max / (1024 * 1024)))} MB of HTML, its most: import the remaining posts from a smaller export (WordPress: Tools > Export by dates; Ghost: remove what was imported)`;
