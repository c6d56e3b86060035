export interface AuthorizationView {
  application_id: string;
  application_name: string;
  user_id: string;
  created_at: string;
}
