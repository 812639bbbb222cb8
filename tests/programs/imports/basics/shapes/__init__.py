print("shapes package initialised as", __name__)
