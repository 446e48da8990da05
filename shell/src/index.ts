// The async boundary the federation runtime needs before any shared module is used (DESIGN.md).
import('./bootstrap');
