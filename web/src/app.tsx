// Routes of the console. Every page is a client route; the server answers index.html for each.
import { Navigate, Route, Routes } from 'react-router';
import { Layout } from './components/layout';
import { AccountPage } from './pages/account';
import { AgentPage } from './pages/agent';
import { AgentsPage } from './pages/agents';
import { AppLaunchPage } from './pages/app-launch';
import { ApprovalPage, ApprovalsPage } from './pages/approvals';
import { AppsPage } from './pages/apps';
import { AuditPage } from './pages/audit';
import { ConnectorsPage } from './pages/connectors';
import { ProfilePage } from './pages/profile';
import { ResourcePage } from './pages/resource';
import { ResourcesPage } from './pages/resources';
import { RoleEditorPage } from './pages/role-editor';
import { RolesPage } from './pages/roles';
import { SessionPage, SessionsPage } from './pages/sessions';
import { SignInPage } from './pages/sign-in';
import { UserPage } from './pages/user';
import { UsersPage } from './pages/users';
import { RequireSession, useCan } from './session';

/** Resources for whoever may list them; else the apps one reaches (a person without admin rights). */
function Home() {
  return <Navigate to={useCan('resources', 'list') ? '/resources' : '/apps'} replace />;
}

export function App() {
  return (
    <Routes>
      <Route path="/login" element={<SignInPage />} />
      <Route
        element={
          <RequireSession>
            <Layout />
          </RequireSession>
        }
      >
        <Route index element={<Home />} />
        <Route path="resources" element={<ResourcesPage />} />
        <Route path="resources/:id" element={<ResourcePage />} />
        <Route path="apps" element={<AppsPage />} />
        <Route path="approvals" element={<ApprovalsPage />} />
        <Route path="approvals/:id" element={<ApprovalPage />} />
        <Route path="users" element={<UsersPage />} />
        <Route path="users/:id" element={<UserPage />} />
        <Route path="roles" element={<RolesPage />} />
        <Route path="roles/new" element={<RoleEditorPage />} />
        <Route path="roles/:id" element={<RoleEditorPage />} />
        <Route path="agents" element={<AgentsPage />} />
        <Route path="agents/:id" element={<AgentPage />} />
        <Route path="sessions" element={<SessionsPage />} />
        <Route path="sessions/:id" element={<SessionPage />} />
        <Route path="audit" element={<AuditPage />} />
        <Route path="profile" element={<ProfilePage />} />
        <Route path="launch/:app" element={<AppLaunchPage />} />
        <Route path="account" element={<AccountPage />} />
        <Route path="connectors" element={<ConnectorsPage />} />
        <Route path="*" element={<p role="alert">There is no page here.</p>} />
      </Route>
    </Routes>
  );
}
