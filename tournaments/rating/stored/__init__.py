"""The ratings' rows: each estimate of the rating model (tournaments.rating.model) read
from and written to the database."""
