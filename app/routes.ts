import { index, layout, prefix, route, type RouteConfig } from "@react-router/dev/routes";

export default [
  index("routes/home.tsx"),
  route("posts", "routes/posts.tsx"),
  route("posts/create-post", "routes/create-post.tsx"),
  route("posts/preview", "routes/post-preview.tsx"),
  route("posts/images", "routes/post-images.tsx"),
  route("posts/details/:id", "routes/post-details.tsx"),
  route("posts/categories/:category", "routes/category.tsx"),
  route("menu", "routes/menu.tsx"),
  route("profile/:id", "routes/profile.tsx"),
  route("login", "routes/login.tsx"),
  route("register", "routes/register.tsx"),
  route("logout", "routes/logout.tsx"),
  route("report", "routes/report.tsx"),
  route("email-sent", "routes/email-sent.tsx"),
  route("api/auth/:userId/verify/:token", "routes/verify-email.tsx"),
  route("forgot-password", "routes/forgot-password.tsx"),
  route("reset-password/:userId/:token", "routes/reset-password.tsx"),
  route("password-reset-successfully", "routes/password-reset-successfully.tsx"),
  ...prefix("admin-dashboard", [
    layout("routes/admin/layout.tsx", [
      index("routes/admin/dashboard.tsx"),
      route("users-table", "routes/admin/users-table.tsx"),
      route("posts-table", "routes/admin/posts-table.tsx"),
      route("categories-table", "routes/admin/categories-table.tsx"),
      route("comments-table", "routes/admin/comments-table.tsx"),
      route("reports-table", "routes/admin/reports-table.tsx"),
      route("audit-log", "routes/admin/audit-log.tsx"),
    ]),
  ]),
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
