"""``python -m appliance.cli``: the same as the ``appliance`` script."""

from appliance.cli import main

main()
