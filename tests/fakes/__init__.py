"""Fakes of foreign services that speak their real wire protocol (on loopback), for tests and benchmarks."""
