// Package deploy checks the deployment recipes that ship with Waggle: the
// Kubernetes manifests under kubernetes/ (decoded strictly into the
// Kubernetes API's own types, so an unknown or misspelt field, a wrong type
// or a wrong apiVersion fails, and cross-checked against each other) and the
// Dockerfile at the repository root. It is a separate module so that the
// Kubernetes API packages stay out of Waggle's own dependency graph.
package deploy
