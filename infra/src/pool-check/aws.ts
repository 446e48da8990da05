/**
 * The post-deploy check's port on AWS (src/pool-check/check.ts): Cognito's
 * ListUserPoolClients and DescribeUserPoolClient, IAM's ListRolePolicies, GetRolePolicy,
 * ListAttachedRolePolicies, GetPolicy and GetPolicyVersion — reads only. Every list is followed
 * to its last page. IAM returns policy documents URL-encoded.
 */
import { DescribeUserPoolClientCommand, ListUserPoolClientsCommand } from '@aws-sdk/client-cognito-identity-provider';
import type { DescribeUserPoolClientCommandOutput, ListUserPoolClientsCommandOutput } from '@aws-sdk/client-cognito-identity-provider';
import { GetPolicyCommand, GetPolicyVersionCommand, GetRolePolicyCommand, ListAttachedRolePoliciesCommand, ListRolePoliciesCommand } from '@aws-sdk/client-iam';
import type {
  GetPolicyCommandOutput,
  GetPolicyVersionCommandOutput,
  GetRolePolicyCommandOutput,
  ListAttachedRolePoliciesCommandOutput,
  ListRolePoliciesCommandOutput,
} from '@aws-sdk/client-iam';
import type { PolicyDocument, PoolCheckPort, PoolClient, RolePolicy } from './check';

/** What the adapters need of an SDK client: `send` (a fake in tests). */
export interface CommandSender {
  send(command: object): Promise<unknown>;
}

/** An IAM policy document as IAM returns it: URL-encoded JSON. */
export function decodePolicyDocument(encoded: string): PolicyDocument {
  return JSON.parse(decodeURIComponent(encoded)) as PolicyDocument;
}

export function awsPoolCheckPort(cognito: CommandSender, iam: CommandSender): PoolCheckPort {
  return {
    async clients(userPoolId) {
      const ids: string[] = [];
      let NextToken: string | undefined;
      do {
        const page = (await cognito.send(
          new ListUserPoolClientsCommand({ UserPoolId: userPoolId, MaxResults: 60, NextToken }),
        )) as ListUserPoolClientsCommandOutput;
        for (const client of page.UserPoolClients ?? []) if (client.ClientId) ids.push(client.ClientId);
        NextToken = page.NextToken;
      } while (NextToken);
      const clients: PoolClient[] = [];
      for (const clientId of ids) {
        const { UserPoolClient: client } = (await cognito.send(
          new DescribeUserPoolClientCommand({ UserPoolId: userPoolId, ClientId: clientId }),
        )) as DescribeUserPoolClientCommandOutput;
        clients.push({ clientId, clientName: client?.ClientName ?? '', writeAttributes: client?.WriteAttributes ?? [] });
      }
      return clients;
    },
    async rolePolicies(roleName) {
      const policies: RolePolicy[] = [];
      let Marker: string | undefined;
      do {
        const page = (await iam.send(new ListRolePoliciesCommand({ RoleName: roleName, Marker }))) as ListRolePoliciesCommandOutput;
        for (const PolicyName of page.PolicyNames ?? []) {
          const inline = (await iam.send(new GetRolePolicyCommand({ RoleName: roleName, PolicyName }))) as GetRolePolicyCommandOutput;
          policies.push({ source: `inline ${PolicyName}`, document: decodePolicyDocument(inline.PolicyDocument ?? '{}') });
        }
        Marker = page.IsTruncated ? page.Marker : undefined;
      } while (Marker);
      do {
        const page = (await iam.send(new ListAttachedRolePoliciesCommand({ RoleName: roleName, Marker }))) as ListAttachedRolePoliciesCommandOutput;
        for (const attached of page.AttachedPolicies ?? []) {
          const PolicyArn = attached.PolicyArn!;
          const { Policy: policy } = (await iam.send(new GetPolicyCommand({ PolicyArn }))) as GetPolicyCommandOutput;
          const { PolicyVersion: version } = (await iam.send(
            new GetPolicyVersionCommand({ PolicyArn, VersionId: policy?.DefaultVersionId }),
          )) as GetPolicyVersionCommandOutput;
          policies.push({ source: `attached ${PolicyArn}`, document: decodePolicyDocument(version?.Document ?? '{}') });
        }
        Marker = page.IsTruncated ? page.Marker : undefined;
      } while (Marker);
      return policies;
    },
  };
}
