import { AuditLog } from '../../components/AuditLog';

export default function Audit() {
  return <AuditLog service="docstore" />;
}
