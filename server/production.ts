// Imported first by main.ts, before React loads: React (and the libraries that ask) pick their
// production builds from NODE_ENV when they are first required. Without it the server renders with
// React's development checks, several times slower. A deliberate NODE_ENV still wins.
process.env.NODE_ENV ??= "production";
