/** The networks the footer has an icon for, in the order it shows them (issue 33). */
export const SOCIAL_NETWORKS = ["github", "linkedin", "x", "facebook"] as const;
export type SocialNetwork = (typeof SOCIAL_NETWORKS)[number];
export const SOCIAL_NETWORK_NAMES: Record<SocialNetwork, string> = {
  github: "GitHub",
  linkedin: "LinkedIn",
  x: "X",
  facebook: "Facebook",
};
