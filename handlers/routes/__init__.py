"""The API's routes, one router per resource (API.md)."""
