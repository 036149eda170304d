"""One module per group of endpoints; `api.app.create_app` includes their routers."""
