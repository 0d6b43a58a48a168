from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="botversion",
            name="retired",
            field=models.BooleanField(default=False),
        ),
    ]
