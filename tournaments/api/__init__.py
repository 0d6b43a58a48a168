"""The REST API (Django REST framework): see docs/api.md for the routes and who may do what."""
