import { forbidden } from "../shared/errors.js";
import type { UsersTable } from "../../db/schema.js";

/** The signed-in person asking for something. */
export interface Actor {
  id: string;
  isAdmin: boolean;
}

export const actorOf = (user: UsersTable): Actor => ({ id: user.id, isAdmin: user.is_admin === 1 });

export const canEditProfile = (actor: Actor, userId: string) => actor.id === userId;

export const canDeleteUser = (actor: Actor, userId: string) => actor.id === userId || actor.isAdmin;

export const canSeeEmail = (actor: Actor | undefined, userId: string) =>
  actor !== undefined && (actor.id === userId || actor.isAdmin);

/** Throws 403 unless the actor is an admin: the admin dashboard's calls. */
export function assertAdmin(actor: Actor) {
  if (!actor.isAdmin) throw forbidden("Only admins may do this");
}
