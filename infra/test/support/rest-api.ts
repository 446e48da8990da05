/**
 * A REST API's methods as a template holds them (AWS::ApiGateway::Resource and ::Method), with the
 * full path of each resource worked out from its PathPart and parent: what the uploads API's
 * tests (uploads-api.test.ts) read.
 */
import type { Template } from 'aws-cdk-lib/assertions';

interface ResourceProperties {
  ParentId: { Ref?: string; 'Fn::GetAtt'?: [string, string] };
  PathPart: string;
}

/** The full path of each AWS::ApiGateway::Resource, by logical id. */
function resourcePaths(template: Template): Map<string, string> {
  const resources = template.findResources('AWS::ApiGateway::Resource');
  const paths = new Map<string, string>();
  const pathOf = (id: string): string => {
    const known = paths.get(id);
    if (known !== undefined) return known;
    const { ParentId, PathPart } = resources[id]!.Properties as ResourceProperties;
    const parent = ParentId.Ref ? pathOf(ParentId.Ref) : '';
    const full = `${parent}/${PathPart}`;
    paths.set(id, full);
    return full;
  };
  for (const id of Object.keys(resources)) pathOf(id);
  return paths;
}

/** Every resource path of the template's REST API (the root, `/`, aside). */
export function restApiPaths(template: Template): string[] {
  return [...resourcePaths(template).values()].sort();
}

export interface RestMethod {
  id: string;
  method: string;
  path: string;
  /** `<METHOD> <path>`, as an HTTP API's route key says it. */
  key: string;
  properties: Record<string, unknown>;
}

/** Every AWS::ApiGateway::Method, with its resource's path (`/` for the root's). */
export function methodsOf(template: Template): RestMethod[] {
  const paths = resourcePaths(template);
  return Object.entries(template.findResources('AWS::ApiGateway::Method')).map(([id, resource]) => {
    const properties = resource.Properties as Record<string, unknown>;
    const resourceId = properties.ResourceId as { Ref?: string };
    const path = resourceId.Ref ? paths.get(resourceId.Ref)! : '/';
    const method = properties.HttpMethod as string;
    return { id, method, path, key: `${method} ${path}`, properties };
  });
}
